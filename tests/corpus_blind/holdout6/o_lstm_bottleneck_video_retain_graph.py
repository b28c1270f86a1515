# corpus: Mobile video object detector with a Bottleneck ConvLSTM whose hidden/cell state lives on the module and is carried frame to frame; the per-frame loss.backward(retain_graph=True) hides the carried graph, and the optimizer.step() between frames makes the next frame's backward fail
# raises: RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation
# source: https://github.com/vikrant7/mobile-vod-bottleneck-lstm/issues/25
import argparse
import logging

import torch
import torch.nn as nn
import torch.nn.functional as F

logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(message)s")


class BottleneckLSTMCell(nn.Module):
    """Bottleneck ConvLSTM cell (Liu & Zhu, 2018): depthwise conv on [x, h], then the four gates."""

    def __init__(self, input_channels, hidden_channels):
        super().__init__()
        self.hidden_channels = hidden_channels
        self.W = nn.Conv2d(input_channels, input_channels, kernel_size=3, padding=1, groups=input_channels)
        self.Wy = nn.Conv2d(input_channels + hidden_channels, hidden_channels, kernel_size=1)
        self.Wi = nn.Conv2d(hidden_channels, hidden_channels, 3, 1, 1, groups=hidden_channels, bias=False)
        self.Wbi = nn.Conv2d(hidden_channels, hidden_channels, 1, bias=False)
        self.Wbf = nn.Conv2d(hidden_channels, hidden_channels, 1, bias=False)
        self.Wbc = nn.Conv2d(hidden_channels, hidden_channels, 1, bias=False)
        self.Wbo = nn.Conv2d(hidden_channels, hidden_channels, 1, bias=False)
        self.relu = nn.ReLU6()

    def forward(self, x, h, c):
        x = self.W(x)
        y = torch.cat((x, h), 1)
        i = self.Wy(y)
        b = self.Wi(i)
        ci = torch.sigmoid(self.Wbi(b))
        cf = torch.sigmoid(self.Wbf(b))
        cc = cf * c + ci * self.relu(self.Wbc(b))
        co = torch.sigmoid(self.Wbo(b))
        ch = co * self.relu(cc)
        return ch, cc


class BottleneckLSTM(nn.Module):
    def __init__(self, input_channels, hidden_channels, height, width, batch_size):
        super().__init__()
        self.cell = BottleneckLSTMCell(input_channels, hidden_channels)
        self.hidden_state = torch.zeros(batch_size, hidden_channels, height, width)
        self.cell_state = torch.zeros(batch_size, hidden_channels, height, width)

    def forward(self, x):
        new_h, new_c = self.cell(x, self.hidden_state, self.cell_state)  # expect: GG104
        self.hidden_state = new_h
        self.cell_state = new_c
        return self.hidden_state


class SSDLite(nn.Module):
    def __init__(self, in_channels, num_classes, num_anchors=2):
        super().__init__()
        self.num_classes = num_classes
        self.classification_header = nn.Conv2d(in_channels, num_anchors * num_classes, 3, padding=1)
        self.regression_header = nn.Conv2d(in_channels, num_anchors * 4, 3, padding=1)

    def forward(self, x):
        confidence = self.classification_header(x).permute(0, 2, 3, 1).contiguous()
        confidence = confidence.view(confidence.size(0), -1, self.num_classes)
        locations = self.regression_header(x).permute(0, 2, 3, 1).contiguous()
        locations = locations.view(locations.size(0), -1, 4)
        return confidence, locations


class MobileVOD(nn.Module):
    def __init__(self, num_classes, batch_size, image_size=16):
        super().__init__()
        self.base_net = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
        )
        fmap = image_size // 4
        self.bottleneck_lstm1 = BottleneckLSTM(16, 16, fmap, fmap, batch_size)
        self.pred_decoder = SSDLite(16, num_classes)

    def forward(self, seq):
        x = self.base_net(seq)
        x = self.bottleneck_lstm1(x)
        return self.pred_decoder(x)

    def detach_hidden(self):
        self.bottleneck_lstm1.hidden_state.detach_()
        self.bottleneck_lstm1.cell_state.detach_()


class MultiboxLoss(nn.Module):
    def forward(self, confidence, predicted_locations, labels, gt_locations):
        num_classes = confidence.size(2)
        classification_loss = F.cross_entropy(confidence.reshape(-1, num_classes), labels.reshape(-1))
        pos_mask = labels > 0
        regression_loss = F.smooth_l1_loss(predicted_locations[pos_mask], gt_locations[pos_mask])
        return regression_loss, classification_loss


def make_loader(num_sequences, sequence_length, batch_size, num_priors, num_classes, image_size=16):
    g = torch.Generator().manual_seed(0)
    loader = []
    for _ in range(num_sequences):
        images = [torch.randn(batch_size, 3, image_size, image_size, generator=g) for _ in range(sequence_length)]
        boxes = [torch.rand(batch_size, num_priors, 4, generator=g) for _ in range(sequence_length)]
        labels = [torch.randint(0, num_classes, (batch_size, num_priors), generator=g) for _ in range(sequence_length)]
        loader.append((images, boxes, labels))
    return loader


def train(loader, net, criterion, optimizer, device, debug_steps=100, epoch=-1, sequence_length=10):
    net.train(True)
    running_loss = 0.0
    running_regression_loss = 0.0
    running_classification_loss = 0.0
    for i, data in enumerate(loader):
        images, boxes, labels = data
        for image, box, label in zip(images, boxes, labels):
            image = image.to(device)
            box = box.to(device)
            label = label.to(device)

            optimizer.zero_grad()
            confidence, locations = net(image)
            regression_loss, classification_loss = criterion(confidence, locations, label, box)
            loss = regression_loss + classification_loss
            loss.backward(retain_graph=True)  # expect: GG302
            optimizer.step()

            running_loss += loss.item()
            running_regression_loss += regression_loss.item()
            running_classification_loss += classification_loss.item()
        net.detach_hidden()
        if i and i % debug_steps == 0:
            avg_loss = running_loss / (debug_steps * sequence_length)
            logging.info(f"Epoch: {epoch}, Step: {i}, Average Loss: {avg_loss:.4f}")
            running_loss = 0.0
            running_regression_loss = 0.0
            running_classification_loss = 0.0
    net.detach_hidden()


def main():
    parser = argparse.ArgumentParser(description="Mobile Video Object Detection (Bottleneck LSTM) training")
    parser.add_argument("--batch_size", type=int, default=2)
    parser.add_argument("--sequence_length", type=int, default=3)
    parser.add_argument("--num_epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=3e-3)
    args = parser.parse_args()

    torch.manual_seed(0)
    device = torch.device("cpu")
    num_classes = 5
    net = MobileVOD(num_classes, args.batch_size).to(device)
    num_priors = 4 * 4 * 2
    loader = make_loader(2, args.sequence_length, args.batch_size, num_priors, num_classes)
    criterion = MultiboxLoss()
    optimizer = torch.optim.RMSprop(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    for epoch in range(args.num_epochs):
        train(loader, net, criterion, optimizer, device, epoch=epoch, sequence_length=args.sequence_length)


if __name__ == "__main__":
    main()
