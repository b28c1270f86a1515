import time

import torch
import torch.optim as optim

import networks
from layers import compute_losses


class Trainer:
    def __init__(self, options, train_loader, val_loader):
        self.opt = options
        self.device = torch.device("cpu")
        self.models = {}
        self.parameters_to_train = []

        self.models["encoder"] = networks.ResnetEncoder().to(self.device)
        self.parameters_to_train += list(self.models["encoder"].parameters())
        self.models["depth"] = networks.DepthDecoder(self.models["encoder"].num_ch_enc, self.opt.scales).to(self.device)
        self.parameters_to_train += list(self.models["depth"].parameters())

        self.model_optimizer = optim.Adam(self.parameters_to_train, self.opt.learning_rate)
        self.model_lr_scheduler = optim.lr_scheduler.StepLR(self.model_optimizer, self.opt.scheduler_step_size, 0.1)

        self.train_loader = train_loader
        self.val_loader = val_loader
        self.val_iter = iter(self.val_loader)

    def set_train(self):
        for m in self.models.values():
            m.train()

    def set_eval(self):
        for m in self.models.values():
            m.eval()

    def train(self):
        self.epoch = 0
        self.step = 0
        self.start_time = time.time()
        for self.epoch in range(self.opt.num_epochs):
            self.run_epoch()

    def run_epoch(self):
        print("Training")
        self.set_train()
        for batch_idx, inputs in enumerate(self.train_loader):
            outputs, losses = self.process_batch(inputs)

            self.model_optimizer.zero_grad()
            losses["loss"].backward()
            self.model_optimizer.step()

            if batch_idx % self.opt.log_frequency == 0:
                print("step {} loss {:.4f}".format(self.step, losses["loss"].item()))
                self.val()
            self.step += 1
        self.model_lr_scheduler.step()

    def process_batch(self, inputs):
        for key, ipt in inputs.items():
            inputs[key] = ipt.to(self.device)
        features = self.models["encoder"](inputs["color_aug", 0, 0])
        outputs = self.models["depth"](features)
        losses = compute_losses(self.opt, inputs, outputs)
        return outputs, losses

    def val(self):
        """Validate the model on a single minibatch"""
        self.set_eval()
        try:
            inputs = next(self.val_iter)
        except StopIteration:
            self.val_iter = iter(self.val_loader)
            inputs = next(self.val_iter)

        with torch.no_grad():  # also: GG106
            outputs, losses = self.process_batch(inputs)
            print("val loss {:.4f}".format(losses["loss"].item()))
            if self.opt.adapt_on_val:
                self.model_optimizer.zero_grad()
                losses["loss"].backward()  # expect: GG106
                self.model_optimizer.step()
            del inputs, outputs, losses

        self.set_train()
