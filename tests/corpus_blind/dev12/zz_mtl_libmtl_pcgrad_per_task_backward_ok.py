# corpus: LibMTL-style Trainer with hard-parameter-sharing encoder, task decoders and a PCGrad weighting; _compute_grad backpropagates each task loss separately with retain_graph=True for all but the last task, projects the per-task gradient vectors and writes them back before one optimizer step; correct
# source: https://github.com/median-research-group/LibMTL/issues/89
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


class AbsWeighting(nn.Module):
    def __init__(self):
        super(AbsWeighting, self).__init__()

    def _compute_grad_dim(self):
        if not hasattr(self, "grad_index"):
            self.grad_index = []
            for param in self.get_share_params():
                self.grad_index.append(param.data.numel())
            self.grad_dim = sum(self.grad_index)

    def _grad2vec(self):
        grad = torch.zeros(self.grad_dim)
        count = 0
        for param in self.get_share_params():
            if param.grad is not None:
                beg = 0 if count == 0 else sum(self.grad_index[:count])
                end = sum(self.grad_index[:(count + 1)])
                grad[beg:end] = param.grad.data.view(-1)
            count += 1
        return grad

    def _compute_grad(self, losses, mode):
        grads = torch.zeros(self.task_num, self.grad_dim)
        for tn in range(self.task_num):
            if mode == 'backward':
                losses[tn].backward(retain_graph=True) if (tn + 1) != self.task_num else losses[tn].backward()
                grads[tn] = self._grad2vec()
            elif mode == 'autograd':
                grad = list(torch.autograd.grad(losses[tn], self.get_share_params(), retain_graph=True))
                grads[tn] = torch.cat([g.view(-1) for g in grad])
            self.zero_grad_share_params()
        return grads

    def _reset_grad(self, new_grads):
        count = 0
        for param in self.get_share_params():
            if param.grad is not None:
                beg = 0 if count == 0 else sum(self.grad_index[:count])
                end = sum(self.grad_index[:(count + 1)])
                param.grad.data = new_grads[beg:end].contiguous().view(param.data.size()).data.clone()
            count += 1


class PCGrad(AbsWeighting):
    def backward(self, losses, **kwargs):
        batch_weight = np.ones(len(losses))
        self._compute_grad_dim()
        grads = self._compute_grad(losses, mode='backward')
        pc_grads = grads.clone()
        for tn_i in range(self.task_num):
            task_index = list(range(self.task_num))
            random.shuffle(task_index)
            for tn_j in task_index:
                g_ij = torch.dot(pc_grads[tn_i], grads[tn_j])
                if g_ij < 0:
                    pc_grads[tn_i] -= g_ij * grads[tn_j] / (grads[tn_j].norm().pow(2) + 1e-8)
                    batch_weight[tn_j] -= (g_ij / (grads[tn_j].norm().pow(2) + 1e-8)).item()
        self._reset_grad(pc_grads.sum(0))
        return batch_weight


class HPS(nn.Module):
    def __init__(self, task_name, encoder_class, decoders):
        super().__init__()
        self.task_name = task_name
        self.task_num = len(task_name)
        self.encoder = encoder_class()
        self.decoders = decoders

    def forward(self, inputs):
        s_rep = self.encoder(inputs)
        return {task: self.decoders[task](s_rep) for task in self.task_name}

    def get_share_params(self):
        return self.encoder.parameters()

    def zero_grad_share_params(self):
        self.encoder.zero_grad(set_to_none=False)


class Trainer(nn.Module):
    def __init__(self, task_dict, weighting, architecture, encoder_class, decoders, lr=1e-2):
        super().__init__()
        self.task_dict = task_dict
        self.task_name = list(task_dict.keys())
        self.task_num = len(self.task_name)

        class MTLmodel(architecture, weighting):
            def __init__(self, task_name, encoder_class, decoders):
                super(MTLmodel, self).__init__(task_name, encoder_class, decoders)

        self.model = MTLmodel(self.task_name, encoder_class, decoders)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)

    def _compute_loss(self, preds, gts):
        train_losses = torch.zeros(self.task_num)
        for tn, task in enumerate(self.task_name):
            train_losses[tn] = self.task_dict[task]['loss_fn'](preds[task], gts[task])
        return train_losses

    def train(self, train_loader, epochs):
        for epoch in range(epochs):
            self.model.train()
            loss_record = np.zeros(self.task_num)
            for train_inputs, train_gts in train_loader:
                train_preds = self.model(train_inputs)
                train_losses = self._compute_loss(train_preds, train_gts)
                loss_record += train_losses.detach().numpy()
                self.optimizer.zero_grad(set_to_none=False)
                w = self.model.backward(train_losses)
                self.optimizer.step()
            print('epoch', epoch, {t: round(float(v), 4) for t, v in zip(self.task_name, loss_record / len(train_loader))},
                  'w', np.round(w, 3))


def main():
    task_dict = {
        'segmentation': {'loss_fn': lambda p, g: F.cross_entropy(p, g)},
        'depth': {'loss_fn': lambda p, g: F.l1_loss(p.squeeze(-1), g)},
    }
    encoder_class = lambda: nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU())
    decoders = nn.ModuleDict({'segmentation': nn.Linear(16, 4), 'depth': nn.Linear(16, 1)})
    trainer = Trainer(task_dict, PCGrad, HPS, encoder_class, decoders)
    loader = [(torch.randn(8, 12), {'segmentation': torch.randint(0, 4, (8,)), 'depth': torch.rand(8)})
              for _ in range(4)]
    trainer.train(loader, epochs=2)


if __name__ == "__main__":
    main()
