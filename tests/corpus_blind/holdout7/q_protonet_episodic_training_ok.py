# corpus: episodic Prototypical Networks training (easy-fsl style): prototypes are built from support features inside the episode with gradients kept, query scores are negative distances, and the backbone is trained through them (correct)
# source: https://github.com/sicara/easy-few-shot-learning/issues/40
import torch
from torch import Tensor, nn


class PrototypicalNetworks(nn.Module):
    def __init__(self, backbone: nn.Module):
        super().__init__()
        self.backbone = backbone
        self.prototypes = torch.tensor(())

    def process_support_set(self, support_images: Tensor, support_labels: Tensor):
        support_features = self.backbone(support_images)
        n_way = int(support_labels.max()) + 1
        self.prototypes = torch.cat([
            support_features[support_labels == label].mean(0, keepdim=True) for label in range(n_way)
        ])

    def forward(self, query_images: Tensor) -> Tensor:
        z_query = self.backbone(query_images)
        return -torch.cdist(z_query, self.prototypes)


def training_epoch(model, data_loader, optimizer, criterion):
    all_loss = []
    model.train()
    for support_images, support_labels, query_images, query_labels in data_loader:
        optimizer.zero_grad()
        model.process_support_set(support_images, support_labels)
        classification_scores = model(query_images)
        loss = criterion(classification_scores, query_labels)
        loss.backward()
        optimizer.step()
        all_loss.append(loss.item())
    return sum(all_loss) / len(all_loss)


@torch.no_grad()
def evaluate(model, data_loader):
    model.eval()
    correct = total = 0
    for support_images, support_labels, query_images, query_labels in data_loader:
        model.process_support_set(support_images, support_labels)
        predictions = model(query_images).argmax(dim=1)
        correct += (predictions == query_labels).sum().item()
        total += len(query_labels)
    return correct / total


def make_episodes(n_episodes, n_way=5, n_shot=2, n_query=3, dim=32):
    episodes = []
    for _ in range(n_episodes):
        s_labels = torch.arange(n_way).repeat_interleave(n_shot)
        q_labels = torch.arange(n_way).repeat_interleave(n_query)
        episodes.append((torch.randn(len(s_labels), dim), s_labels, torch.randn(len(q_labels), dim), q_labels))
    return episodes


def main():
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16))
    model = PrototypicalNetworks(backbone)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
    criterion = nn.CrossEntropyLoss()
    before = backbone[0].weight.detach().clone()
    for epoch in range(2):
        print(f"Epoch {epoch}", training_epoch(model, make_episodes(3), optimizer, criterion))
    print("val acc", evaluate(model, make_episodes(2)))
    assert not torch.equal(before, backbone[0].weight)


if __name__ == "__main__":
    main()
