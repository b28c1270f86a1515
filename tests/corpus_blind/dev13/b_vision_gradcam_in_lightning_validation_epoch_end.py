# corpus: Lightning-style classifier that logs Grad-CAM heatmaps in validation_epoch_end: the trainer runs the whole validation loop under torch.no_grad(), so the CAM target score has no graph and its backward(retain_graph=True) fails
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/jacobgil/pytorch-grad-cam/issues/381
import torch
import torch.nn as nn
import torch.nn.functional as F


class GradCAM:
    def __init__(self, model, target_layers):
        self.model = model
        self.activations, self.gradients = {}, {}
        for idx, layer in enumerate(target_layers):
            layer.register_forward_hook(self._make_hook(idx))

    def _make_hook(self, idx):
        def hook(module, inputs, output):
            self.activations[idx] = output.detach()
            if output.requires_grad:
                output.register_hook(lambda grad: self.gradients.__setitem__(idx, grad.detach()))
        return hook

    def __call__(self, input_tensor, targets):
        was_training = self.model.training
        self.model.eval()
        outputs = self.model(input_tensor)
        self.model.zero_grad()
        loss = sum(outputs[i, t] for i, t in enumerate(targets))
        loss.backward(retain_graph=True)  # expect: GG106
        weights = self.gradients[0].mean(dim=(2, 3), keepdim=True)
        cam = F.relu((weights * self.activations[0]).sum(1))
        self.model.train(was_training)
        return (cam / (cam.amax(dim=(1, 2), keepdim=True) + 1e-7)).numpy()


class LitClassifier(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.head = nn.Linear(8, num_classes)
        self.target_layers = [self.features[-1]]
        self.val_outputs = []
        self.logged = {}

    def forward(self, x):
        return self.head(self.features(x).mean(dim=(2, 3)))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.val_outputs.append({"x": x, "y": y, "loss": F.cross_entropy(logits, y)})

    def _initialize_grad_cam(self):
        return GradCAM(model=self, target_layers=self.target_layers)

    def validation_epoch_end(self):
        self.logged["val_loss"] = torch.stack([o["loss"] for o in self.val_outputs]).mean().item()
        img_tensor, targets = self.val_outputs[0]["x"][:2], self.val_outputs[0]["y"][:2].tolist()
        cam = self._initialize_grad_cam()
        grayscale_cam = cam(input_tensor=img_tensor, targets=targets)  # also: GG106
        self.logged["cam_mean"] = float(grayscale_cam.mean())
        self.val_outputs.clear()


class Trainer:
    def __init__(self, max_epochs=1):
        self.max_epochs = max_epochs

    def fit(self, module, train_loader, val_loader):
        optimizer = module.configure_optimizers()
        for epoch in range(self.max_epochs):
            module.train()
            for batch_idx, batch in enumerate(train_loader):
                loss = module.training_step(batch, batch_idx)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            self._run_validation(module, val_loader)
            print("epoch", epoch, module.logged)

    def _run_validation(self, module, val_loader):
        module.eval()
        with torch.no_grad():  # also: GG106
            for batch_idx, batch in enumerate(val_loader):
                module.validation_step(batch, batch_idx)
            module.validation_epoch_end()
        module.train()


def make_loader(n_batches=3, bs=4):
    return [(torch.randn(bs, 3, 12, 12), torch.randint(0, 5, (bs,))) for _ in range(n_batches)]


def main():
    torch.manual_seed(0)
    trainer = Trainer(max_epochs=1)
    trainer.fit(LitClassifier(), make_loader(), make_loader(n_batches=2))


if __name__ == "__main__":
    main()
