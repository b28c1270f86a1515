# corpus: MLDG meta-learning for domain generalisation with functional layer wrappers: meta-train losses of the source domains are summed (with their graphs, for the outer backward), every layer adapts its weights with autograd.grad(meta_loss, weight, create_graph=True), the held-out domain loss is taken on the adapted weights and one total_loss.backward() per iteration trains through the second-order path
# source: https://github.com/Pulkit-Khandelwal/medical-mldg-seg/issues/2
import random

import numpy as np
import torch
import torch.autograd as autograd
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)


# ------------------------------------------------------------------ ops.py
def linear(inputs, weight, bias, meta_step_size=0.001, meta_loss=None, stop_gradient=False):
    if meta_loss is not None:
        if not stop_gradient:
            grad_weight = autograd.grad(meta_loss, weight, create_graph=True)[0]
            grad_bias = autograd.grad(meta_loss, bias, create_graph=True)[0]
        else:
            grad_weight = autograd.grad(meta_loss, weight, create_graph=True)[0].detach()
            grad_bias = autograd.grad(meta_loss, bias, create_graph=True)[0].detach()
        return F.linear(inputs, weight - grad_weight * meta_step_size, bias - grad_bias * meta_step_size)
    return F.linear(inputs, weight, bias)


def conv2d(inputs, weight, bias, meta_step_size=0.001, stride=1, padding=0, meta_loss=None, stop_gradient=False):
    if meta_loss is not None:
        if not stop_gradient:
            grad_weight = autograd.grad(meta_loss, weight, create_graph=True)[0]
            grad_bias = autograd.grad(meta_loss, bias, create_graph=True)[0]
        else:
            grad_weight = autograd.grad(meta_loss, weight, create_graph=True)[0].detach()
            grad_bias = autograd.grad(meta_loss, bias, create_graph=True)[0].detach()
        return F.conv2d(inputs, weight - grad_weight * meta_step_size, bias - grad_bias * meta_step_size,
                        stride, padding)
    return F.conv2d(inputs, weight, bias, stride, padding)


def relu(inputs):
    return F.relu(inputs, inplace=False)


# --------------------------------------------------------------- network
class MetaSegNet(nn.Module):
    def __init__(self, in_ch=1, width=4, n_classes=2):
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, width, 3, 1, 1)
        self.bn1 = nn.GroupNorm(1, width)
        self.conv2 = nn.Conv2d(width, width, 3, 1, 1)
        self.bn2 = nn.GroupNorm(1, width)
        self.head = nn.Linear(width, n_classes)

    def forward(self, x, meta_step_size=0.001, meta_loss=None, stop_gradient=False):
        x = conv2d(x, self.conv1.weight, self.conv1.bias, meta_step_size=meta_step_size, padding=1,
                   meta_loss=meta_loss, stop_gradient=stop_gradient)
        x = relu(self.bn1(x))
        x = conv2d(x, self.conv2.weight, self.conv2.bias, meta_step_size=meta_step_size, padding=1,
                   meta_loss=meta_loss, stop_gradient=stop_gradient)
        x = relu(self.bn2(x))
        logits = linear(x.permute(0, 2, 3, 1), self.head.weight, self.head.bias, meta_step_size=meta_step_size,
                        meta_loss=meta_loss, stop_gradient=stop_gradient).permute(0, 3, 1, 2)
        return logits, F.softmax(logits, dim=1)


def compute_accuracy(predictions, labels):
    return float(np.mean(predictions == labels))


class MetaLearningTrainer:
    def __init__(self, n_domains=4, bs=2, epochs=2):
        self.network = MetaSegNet()
        self.optimizer = torch.optim.SGD(self.network.parameters(), lr=1e-2, momentum=0.9)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=1, gamma=0.9)
        self.loss_fn = nn.CrossEntropyLoss()
        self.epochs = epochs
        self.bs = bs
        self.domains = [(torch.randn(bs, 1, 8, 8) + d, torch.randint(0, 2, (bs, 8, 8))) for d in range(n_domains)]

    def train(self):
        ite = 0
        for epoch in range(self.epochs):
            for index_val in range(len(self.domains)):
                meta_train_loss = 0.0
                total_train_acc = []
                for index, (images_train, labels_train) in enumerate(self.domains):
                    if index == index_val:
                        continue
                    outputs, predictions_train = self.network(x=images_train, meta_step_size=0.001,
                                                              meta_loss=None, stop_gradient=False)
                    loss = self.loss_fn(outputs, labels_train.long())
                    meta_train_loss += loss
                    predicted_classes = np.argmax(predictions_train.cpu().data.numpy(), axis=1)
                    total_train_acc.append(compute_accuracy(predicted_classes, labels_train.numpy()))

                images_v, labels_v = self.domains[index_val]
                outputs_val, predictions_val = self.network(x=images_v, meta_step_size=1,
                                                            meta_loss=meta_train_loss, stop_gradient=False)
                meta_val_loss = self.loss_fn(outputs_val, labels_v)
                total_loss = meta_train_loss + meta_val_loss

                self.optimizer.zero_grad()
                total_loss.backward()
                self.optimizer.step()
                ite += 1
                print('epoch:', epoch + 1, 'ite:', ite, 'meta_train_loss: %.4f' % meta_train_loss.item(),
                      'meta_val_loss: %.4f' % meta_val_loss.item(), 'acc: %.3f' % np.mean(total_train_acc))
            self.scheduler.step()


def main():
    MetaLearningTrainer().train()


if __name__ == "__main__":
    main()
