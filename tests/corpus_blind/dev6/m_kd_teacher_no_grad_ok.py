# corpus: knowledge-distillation helper for fine-tuning a compressed student CNN: the teacher runs under torch.no_grad(), its softened outputs are the KL target, and the KD term is added to the student's cross-entropy before a single backward (correct)
# source: https://github.com/microsoft/nni/pull/1819
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class KnowledgeDistill:
    """Knowledge Distillation support while fine-tuning the compressed model."""

    def __init__(self, teacher_model, kd_T=1):
        self.teacher_model = teacher_model
        self.kd_T = kd_T

    def _get_kd_loss(self, data, student_out, teacher_out_preprocess=None):
        with torch.no_grad():
            kd_out = self.teacher_model(data)
        if teacher_out_preprocess is not None:
            kd_out = teacher_out_preprocess(kd_out)
        assert type(kd_out) is torch.Tensor
        assert type(student_out) is torch.Tensor
        assert kd_out.shape == student_out.shape
        soft_log_out = F.log_softmax(student_out / self.kd_T, dim=1)
        soft_t = F.softmax(kd_out / self.kd_T, dim=1)
        loss_kd = F.kl_div(soft_log_out, soft_t.detach(), reduction="batchmean")
        return loss_kd

    def loss(self, data, student_out):
        return self._get_kd_loss(data, student_out)


class Net(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.conv1 = nn.Conv2d(1, width, 3, 1)
        self.conv2 = nn.Conv2d(width, 2 * width, 3, 1)
        self.fc1 = nn.Linear(2 * width * 5 * 5, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(torch.flatten(x, 1)))
        return self.fc2(x)


def train(model, device, train_loader, optimizer, kd, alpha, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target) + alpha * kd.loss(data=data, student_out=output)
        loss.backward()
        optimizer.step()
        print("Train Epoch: {} [{}]\tLoss: {:.6f}".format(epoch, batch_idx, loss.item()))


def test(model, device, test_loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data.to(device))
            correct += output.argmax(dim=1).eq(target.to(device)).sum().item()
    return correct


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kd_T", type=float, default=4.0)
    parser.add_argument("--alpha", type=float, default=0.9)
    parser.add_argument("--lr", type=float, default=0.01)
    args = parser.parse_args([])

    torch.manual_seed(0)
    device = torch.device("cpu")
    teacher = Net(width=32).to(device)
    teacher.eval()
    student = Net(width=8).to(device)
    kd = KnowledgeDistill(teacher, kd_T=args.kd_T)
    optimizer = optim.SGD(student.parameters(), lr=args.lr, momentum=0.9)
    train_loader = [(torch.randn(8, 1, 14, 14), torch.randint(0, 10, (8,))) for _ in range(3)]
    for epoch in range(2):
        train(student, device, train_loader, optimizer, kd, args.alpha, epoch)
        print("correct:", test(student, device, train_loader))


if __name__ == "__main__":
    main()
