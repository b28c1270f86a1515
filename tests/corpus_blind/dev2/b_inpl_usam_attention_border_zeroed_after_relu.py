# corpus: unit-subtraction attention module (USAM) zeroes the border of its ReLU attention map by slice assignment (polish=True); the ReLU output is needed by backward, so the training step fails
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/AggMan96/RK-Net/issues/9
import torch
import torch.nn as nn
import torch.nn.functional as F


class USAM(nn.Module):
    def __init__(self, kernel_size=3, padding=1, polish=True):
        super(USAM, self).__init__()
        kernel = torch.ones((kernel_size, kernel_size)).unsqueeze(0).unsqueeze(0)
        self.weight = nn.Parameter(data=kernel, requires_grad=False)
        kernel2 = (torch.ones((1, 1)) * (kernel_size * kernel_size)).unsqueeze(0).unsqueeze(0)
        self.weight2 = nn.Parameter(data=kernel2, requires_grad=False)
        self.polish = polish
        self.pad = padding
        self.relu = nn.ReLU()
        self.bn = nn.BatchNorm2d(1)

    def __call__(self, x):
        fmap = x.sum(1, keepdim=True)
        x1 = F.conv2d(fmap, self.weight, padding=self.pad)
        x2 = F.conv2d(fmap, self.weight2, padding=0)
        att = x2 - x1
        att = self.bn(att)
        att = self.relu(att)
        if self.polish:
            att[:, :, :, 0] = 0  # expect: GG107
            att[:, :, :, -1] = 0  # also: GG107
            att[:, :, 0, :] = 0  # also: GG107
            att[:, :, -1, :] = 0  # also: GG107
        output = x + att * x
        return output


class RKNet(nn.Module):
    def __init__(self, class_num=5, pool='avg'):
        super(RKNet, self).__init__()
        self.conv1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True))
        self.usam_1 = USAM()
        self.conv2 = nn.Sequential(nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True))
        self.usam_2 = USAM()
        self.pool = pool
        self.avgpool2 = nn.AdaptiveAvgPool2d((1, 1))
        self.classifier = nn.Linear(16, class_num)

    def forward(self, x):
        x = self.usam_1(self.conv1(x))
        x = self.usam_2(self.conv2(x))
        x = self.avgpool2(x).view(x.size(0), -1)
        return self.classifier(x)


def train_model(model, criterion, optimizer, num_epochs=1, steps=2):
    model.train()
    for epoch in range(num_epochs):
        running_loss = 0.0
        for _ in range(steps):
            inputs = torch.randn(4, 3, 8, 8)
            labels = torch.randint(0, 5, (4,))
            optimizer.zero_grad()
            outputs = model(inputs)
            loss = criterion(outputs, labels)
            loss.backward()  # also: GG107
            optimizer.step()
            running_loss += loss.item() * inputs.size(0)
        print('epoch {} loss {:.4f}'.format(epoch, running_loss / (steps * 4)))
    return model


if __name__ == '__main__':
    torch.manual_seed(0)
    model = RKNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    train_model(model, nn.CrossEntropyLoss(), optimizer)
