# corpus: transfer-learning notebook: pretrained DenseNet-style feature extractor frozen with requires_grad=False, a new classifier head trained with Adam, but the training loop never calls optimizer.zero_grad(), so each step applies the sum of all previous batches' gradients
# source: https://github.com/udacity/deep-learning-v2-pytorch/pull/160
import torch
from torch import nn, optim


class DenseNetLike(nn.Module):
    """Stand-in for torchvision.models.densenet121: a `features` trunk and a `classifier` head."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
            nn.Conv2d(16, 32, 3, padding=1, stride=2), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.classifier = nn.Linear(32, 1000)

    def forward(self, x):
        return self.classifier(self.features(x))


def get_loaders(n_train=6, n_test=2, batch_size=8):
    trainloader = [(torch.randn(batch_size, 3, 32, 32), torch.randint(0, 2, (batch_size,))) for _ in range(n_train)]
    testloader = [(torch.randn(batch_size, 3, 32, 32), torch.randint(0, 2, (batch_size,))) for _ in range(n_test)]
    return trainloader, testloader


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    trainloader, testloader = get_loaders()

    model = DenseNetLike()  # models.densenet121(pretrained=True)

    # Freeze parameters so we don't backprop through them
    for param in model.parameters():
        param.requires_grad = False

    model.classifier = nn.Sequential(nn.Linear(32, 256),
                                     nn.ReLU(),
                                     nn.Dropout(0.2),
                                     nn.Linear(256, 2),
                                     nn.LogSoftmax(dim=1))

    criterion = nn.NLLLoss()

    # Only train the classifier parameters, feature parameters are frozen
    optimizer = optim.Adam(model.classifier.parameters(), lr=0.003)
    model.to(device)

    epochs = 1
    steps = 0
    running_loss = 0
    print_every = 3
    for epoch in range(epochs):
        for inputs, labels in trainloader:
            steps += 1
            # Move input and label tensors to the default device
            inputs, labels = inputs.to(device), labels.to(device)

            logps = model.forward(inputs)
            loss = criterion(logps, labels)
            loss.backward()  # expect: GG201
            optimizer.step()

            running_loss += loss.item()

            if steps % print_every == 0:
                test_loss = 0
                accuracy = 0
                model.eval()
                with torch.no_grad():
                    for inputs, labels in testloader:
                        inputs, labels = inputs.to(device), labels.to(device)
                        logps = model.forward(inputs)
                        batch_loss = criterion(logps, labels)

                        test_loss += batch_loss.item()

                        # Calculate accuracy
                        ps = torch.exp(logps)
                        top_p, top_class = ps.topk(1, dim=1)
                        equals = top_class == labels.view(*top_class.shape)
                        accuracy += torch.mean(equals.type(torch.FloatTensor)).item()

                print(f"Epoch {epoch + 1}/{epochs}.. "
                      f"Train loss: {running_loss / print_every:.3f}.. "
                      f"Test loss: {test_loss / len(testloader):.3f}.. "
                      f"Test accuracy: {accuracy / len(testloader):.3f}")
                running_loss = 0
                model.train()
    return model, criterion, trainloader


if __name__ == "__main__":
    main()
