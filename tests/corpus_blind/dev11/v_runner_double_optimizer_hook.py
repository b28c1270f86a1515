# corpus: mmcv-style runner: the config keeps the default OptimizerHook and also adds a GradientCumulativeOptimizerHook as a custom hook, so every iteration backpropagates the same loss twice
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/open-mmlab/mmcv/issues/1379
import torch
import torch.nn as nn
import torch.nn.functional as F


class Hook:
    priority = 50

    def before_train_iter(self, runner):
        pass

    def after_train_iter(self, runner):
        pass


class OptimizerHook(Hook):
    priority = 30  # ABOVE_NORMAL: runs before custom hooks

    def __init__(self, grad_clip=None):
        self.grad_clip = grad_clip

    def after_train_iter(self, runner):
        runner.optimizer.zero_grad()
        runner.outputs["loss"].backward()  # also: GG101
        if self.grad_clip is not None:
            nn.utils.clip_grad_norm_(runner.model.parameters(), **self.grad_clip)
        runner.optimizer.step()


class GradientCumulativeOptimizerHook(OptimizerHook):
    def __init__(self, cumulative_iters=1, **kwargs):
        super().__init__(**kwargs)
        self.cumulative_iters = cumulative_iters

    def after_train_iter(self, runner):
        loss = runner.outputs["loss"] / self.cumulative_iters
        loss.backward()  # expect: GG101
        if (runner.iter + 1) % self.cumulative_iters == 0:
            runner.optimizer.step()
            runner.optimizer.zero_grad()


class TinyClassifier(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.cls_head = nn.Linear(16, num_classes)

    def train_step(self, data_batch, optimizer):
        feats = self.backbone(data_batch["img"])
        loss = F.cross_entropy(self.cls_head(feats), data_batch["gt_label"])
        log_vars = {"loss": loss.item()}
        return dict(loss=loss, log_vars=log_vars, num_samples=data_batch["img"].size(0))


class EpochBasedRunner:
    def __init__(self, model, optimizer, max_iters):
        self.model = model
        self.optimizer = optimizer
        self.max_iters = max_iters
        self.iter = 0
        self.outputs = None
        self._hooks = []
        self.log_buffer = []

    def register_hook(self, hook):
        self._hooks.append(hook)
        self._hooks.sort(key=lambda h: h.priority)

    def register_training_hooks(self, optimizer_config, custom_hooks):
        self.register_hook(OptimizerHook(**optimizer_config))
        for cfg in custom_hooks:
            cfg = dict(cfg)
            hook_type = cfg.pop("type")
            self.register_hook(HOOKS[hook_type](**cfg))  # also: GG101

    def call_hook(self, fn_name):
        for hook in self._hooks:
            getattr(hook, fn_name)(self)

    def train(self, data_loader):
        self.model.train()
        for data_batch in data_loader:
            self.call_hook("before_train_iter")
            self.outputs = self.model.train_step(data_batch, self.optimizer)
            self.log_buffer.append(self.outputs["log_vars"]["loss"])
            self.call_hook("after_train_iter")
            self.iter += 1
            if self.iter >= self.max_iters:
                break


HOOKS = {"GradientCumulativeOptimizerHook": GradientCumulativeOptimizerHook}


def make_loader(n_batches=4, batch_size=6):
    return [
        {"img": torch.randn(batch_size, 8), "gt_label": torch.randint(0, 3, (batch_size,))}
        for _ in range(n_batches)
    ]


def main():
    torch.manual_seed(0)
    model = TinyClassifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    optimizer_config = dict(grad_clip=None)  # from schedule_1x.py
    custom_hooks = [dict(type="GradientCumulativeOptimizerHook", cumulative_iters=2)]
    runner = EpochBasedRunner(model, optimizer, max_iters=4)
    runner.register_training_hooks(optimizer_config, custom_hooks)
    runner.train(make_loader())
    print("losses", [round(v, 4) for v in runner.log_buffer])


if __name__ == "__main__":
    main()
