# corpus: pinns-torch style Navier-Stokes PINN whose output_fn derives u, v from the stream function with torch.autograd.grad; the eval step re-enables grad with torch.set_grad_enabled(True), which rescues it under no_grad but not under the torch.inference_mode the Lightning-like trainer uses by default, so psi has no grad_fn and the derivative call fails
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/rezaakb/pinns-torch/issues/12
import random
from typing import Dict, List, Union

import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)


# ------------------------------------------------------ pinnstorch.utils
def gradient(dy: torch.Tensor, dx: Union[List[torch.Tensor], torch.Tensor],
             create_graph: bool = True) -> List[torch.Tensor]:
    if isinstance(dx, torch.Tensor):
        dx = [dx]
    grad_outputs = [torch.ones_like(dy)]
    dy_dx = torch.autograd.grad([dy], dx, grad_outputs=grad_outputs, create_graph=create_graph, retain_graph=True)  # also: GG106
    return [g if g is not None else torch.zeros_like(dx[i]) for i, g in enumerate(dy_dx)]


def set_requires_grad(*tensors):
    return [t.requires_grad_(True) for t in tensors]


# ---------------------------------------------------------- examples/ns
def output_fn(outputs: Dict[str, torch.Tensor], x, y, t):
    outputs["u"] = gradient(outputs["psi"], y)[0]
    outputs["v"] = -gradient(outputs["psi"], x)[0]
    return outputs


def pde_fn(outputs, x, y, t, extra_variables):
    u_x, u_y, u_t = gradient(outputs["u"], [x, y, t])
    u_xx = gradient(u_x, x)[0]
    u_yy = gradient(u_y, y)[0]
    v_x, v_y, v_t = gradient(outputs["v"], [x, y, t])
    v_xx = gradient(v_x, x)[0]
    v_yy = gradient(v_y, y)[0]
    p_x, p_y = gradient(outputs["p"], [x, y])
    outputs["f_u"] = (u_t + extra_variables["l1"] * (outputs["u"] * u_x + outputs["v"] * u_y)
                      + p_x - extra_variables["l2"] * (u_xx + u_yy))
    outputs["f_v"] = (v_t + extra_variables["l1"] * (outputs["u"] * v_x + outputs["v"] * v_y)
                      + p_y - extra_variables["l2"] * (v_xx + v_yy))
    return outputs


# ------------------------------------------------------ pinn_module.py
class FCN(nn.Module):
    def __init__(self, layers=(3, 20, 20, 2)):
        super().__init__()
        mods = []
        for i in range(len(layers) - 2):
            mods += [nn.Linear(layers[i], layers[i + 1]), nn.Tanh()]
        mods.append(nn.Linear(layers[-2], layers[-1]))
        self.model = nn.Sequential(*mods)

    def forward(self, x, y, t):
        out = self.model(torch.cat([x, y, t], dim=1))
        return {"psi": out[:, 0:1], "p": out[:, 1:2]}


class PINNModule(nn.Module):
    def __init__(self, net, pde_fn, output_fn):
        super().__init__()
        self.net = net
        self.pde_fn = pde_fn
        self.output_fn = output_fn
        self.extra_variables = nn.ParameterDict({
            "l1": nn.Parameter(torch.tensor(0.0)),
            "l2": nn.Parameter(torch.tensor(0.0)),
        })
        self.val_errors = []

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

    def model_step(self, batch):
        x, y, t, u, v = batch
        x, y, t = set_requires_grad(x, y, t)
        outputs = self.output_fn(self.net(x, y, t), x, y, t)
        outputs = self.pde_fn(outputs, x, y, t, self.extra_variables)
        loss = ((outputs["u"] - u) ** 2).mean() + ((outputs["v"] - v) ** 2).mean() \
            + (outputs["f_u"] ** 2).mean() + (outputs["f_v"] ** 2).mean()
        return loss, outputs

    def training_step(self, batch, batch_idx):
        loss, _ = self.model_step(batch)
        return loss

    def eval_step(self, batch):
        x, y, t, u, v = batch
        with torch.set_grad_enabled(True):
            x, y, t = set_requires_grad(x, y, t)
            preds = self.output_fn(self.net(x, y, t), x, y, t)
        error = torch.linalg.norm(preds["u"] - u) / torch.linalg.norm(u)
        return error

    def validation_step(self, batch, batch_idx):
        error = self.eval_step(batch)
        self.val_errors.append(error.item())


# ------------------------------------------------- a tiny Lightning Trainer
class Trainer:
    def __init__(self, max_epochs=2, check_val_every_n_epoch=1, inference_mode=True):
        self.max_epochs = max_epochs
        self.check_val_every_n_epoch = check_val_every_n_epoch
        self.inference_mode = inference_mode

    def fit(self, module, train_batches, val_batches):
        opt = module.configure_optimizers()
        for epoch in range(self.max_epochs):
            module.train()
            for batch_idx, batch in enumerate(train_batches):
                opt.zero_grad()
                loss = module.training_step(batch, batch_idx)
                loss.backward()
                opt.step()
            if (epoch + 1) % self.check_val_every_n_epoch == 0:
                self.validate(module, val_batches)

    def validate(self, module, val_batches):
        module.eval()
        if self.inference_mode:
            with torch.inference_mode():  # expect: GG106
                self._run_eval_loop(module, val_batches)
        else:
            with torch.no_grad():
                self._run_eval_loop(module, val_batches)

    def _run_eval_loop(self, module, val_batches):
        for batch_idx, batch in enumerate(val_batches):
            module.validation_step(batch, batch_idx)


def make_point_cloud(n=64):
    x, y, t = torch.rand(n, 1), torch.rand(n, 1), torch.rand(n, 1)
    u = torch.sin(np.pi * x) * torch.cos(np.pi * y)
    v = -torch.cos(np.pi * x) * torch.sin(np.pi * y)
    return x, y, t, u, v


def main():
    train_batches = [make_point_cloud() for _ in range(2)]
    val_batches = [make_point_cloud(32)]
    module = PINNModule(FCN(), pde_fn=pde_fn, output_fn=output_fn)
    trainer = Trainer(max_epochs=2)
    trainer.fit(module, train_batches, val_batches)
    print("val errors", module.val_errors)


if __name__ == "__main__":
    main()
