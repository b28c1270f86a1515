# corpus: Knowledge-distillation training module (Lightning-style training_step returning a loss dict) whose frozen teacher's logits serve only as the MSE target of the student, with validation losses collected under no_grad; correct.
# source: https://github.com/vrvlive/knowlege-distillation/blob/ac7f8975e477a59186b9760e00ce20b879ca96fd/training_module.py
from types import SimpleNamespace

import torch as th
from torch import nn, optim


class CnnModelFactory:
    def create_model(self, model_name, image_size, num_classes, pre_trained=False):
        width = {'resnet_small': 4, 'resnet_large': 12}[model_name]
        model = nn.Sequential(nn.Conv2d(3, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
                              nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, num_classes))
        model.load = lambda: None  # pretrained weights would be loaded here
        return model


class ImageDataLoader:
    def __init__(self, hparams):
        g = th.Generator().manual_seed(1)
        size = hparams.image_size
        self._train = [(th.rand(8, 3, size, size, generator=g), th.randint(0, hparams.num_classes, (8,), generator=g))
                       for _ in range(3)]
        self._valid = [(th.rand(8, 3, size, size, generator=g), th.randint(0, hparams.num_classes, (8,), generator=g))
                       for _ in range(2)]

    def get_train_dataloader(self):
        return self._train

    def get_valid_dataloader(self):
        return self._valid


class TrainingModule(nn.Module):
    def __init__(self, model_name, hparams, pre_trained=False):
        super(TrainingModule, self).__init__()
        self._hparams = hparams
        self._loss = nn.CrossEntropyLoss()
        self._model = self.create_model(model_name=model_name, pre_trained=pre_trained)
        self._dataloader = None

    def create_model(self, model_name, pre_trained):
        model_factory = CnnModelFactory()
        return model_factory.create_model(model_name=model_name, image_size=self._hparams.image_size,
                                          num_classes=self._hparams.num_classes, pre_trained=pre_trained)

    def prepare_data(self):
        self._dataloader = ImageDataLoader(hparams=self._hparams)

    def forward(self, images):
        return self._model(images)

    def training_step(self, batch, batch_idx):
        images, labels = batch
        y_hat = self.forward(images)
        loss = self._loss(y_hat, labels).mean()
        return {'loss': loss, 'log': {'train_loss': loss}}

    def validation_step(self, batch, batch_idx):
        images, labels = batch
        y_hat = self.forward(images)
        loss = self._loss(y_hat, labels)
        acc = (y_hat.argmax(-1) == labels).float()
        return {'loss': loss, 'acc': acc}

    def validation_epoch_end(self, outputs):
        loss = th.stack([output['loss'] for output in outputs], dim=0).mean()
        acc = th.cat([output['acc'] for output in outputs], dim=0).mean()
        out = {'val_loss': loss, 'val_acc': acc}
        return {**out, 'log': out}

    def train_dataloader(self):
        return self._dataloader.get_train_dataloader()

    def val_dataloader(self):
        return self._dataloader.get_valid_dataloader()

    def configure_optimizers(self):
        return optim.SGD(self._model.parameters(), lr=self._hparams.learning_rate, momentum=self._hparams.momentum)


class DistilledTrainingModule(TrainingModule):
    def __init__(self, student_model_name, teacher_model_name, hparams):
        super(DistilledTrainingModule, self).__init__(model_name=student_model_name, hparams=hparams)
        self._mse_loss = nn.MSELoss()
        self._teacher_model = self.create_model(self._hparams.teacher_model, pre_trained=True)
        self._teacher_model.load()
        for param in self._teacher_model.parameters():
            param.requires_grad = False

    def training_step(self, batch, batch_idx):
        images, labels = batch
        y_hat_student = self.forward(images)
        y_hat_teacher = self._teacher_model.forward(images)
        loss = self._mse_loss(y_hat_student, y_hat_teacher)
        return {'loss': loss, 'log': {'train_loss': loss}}


class Trainer:
    """Minimal stand-in for pl.Trainer.fit: automatic optimization plus a no_grad validation loop."""

    def __init__(self, max_epochs):
        self.max_epochs = max_epochs

    def fit(self, module):
        module.prepare_data()
        optimizer = module.configure_optimizers()
        for epoch in range(self.max_epochs):
            module.train()
            for batch_idx, batch in enumerate(module.train_dataloader()):
                optimizer.zero_grad()
                out = module.training_step(batch, batch_idx)
                out['loss'].backward()
                optimizer.step()
            module.eval()
            with th.no_grad():
                outputs = [module.validation_step(b, i) for i, b in enumerate(module.val_dataloader())]
                logs = module.validation_epoch_end(outputs)['log']
            print(f"epoch {epoch} train_loss {out['log']['train_loss'].item():.4f} "
                  f"val_loss {logs['val_loss'].item():.4f} val_acc {logs['val_acc'].item():.2f}")


def main():
    th.manual_seed(0)
    hparams = SimpleNamespace(image_size=8, num_classes=4, learning_rate=0.05, momentum=0.9,
                              teacher_model='resnet_large')
    module = DistilledTrainingModule('resnet_small', 'resnet_large', hparams)
    Trainer(max_epochs=2).fit(module)


if __name__ == '__main__':
    main()
