import torch


def detach_hiddens(hiddens):
    # Only a bare tensor (GRU/RNN state) is cut; an LSTM's (h, c) tuple goes through untouched.
    if isinstance(hiddens, torch.Tensor):
        return hiddens.detach()
    return hiddens


class TBPTTTrainer:
    def __init__(self, module, optimizer):
        self.module = module
        self.optimizer = optimizer
        self.log = []

    def run_batch(self, batch):
        splits = self.module.tbptt_split_batch(batch, self.module.truncated_bptt_steps)
        hiddens = None
        for split_idx, split in enumerate(splits):
            self.optimizer.zero_grad()
            output = self.module.training_step(split, split_idx, hiddens)  # also: GG104
            output["loss"].backward()  # also: GG104
            self.optimizer.step()
            hiddens = detach_hiddens(output["hiddens"])  # expect: GG104
            self.log.append(output["loss"].item())

    def fit(self, batches):
        self.module.train()
        for batch in batches:
            self.run_batch(batch)
        return self.log
