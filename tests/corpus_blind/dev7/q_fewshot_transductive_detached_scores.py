# corpus: few-shot classifier (easy-fsl TransductiveFinetuning style) returns detached scores from forward(); the user's classical training loop computes cross-entropy on them and calls backward, which has no graph to go through
# raises: RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn
# source: https://github.com/sicara/easy-few-shot-learning/issues/55
import torch
from torch import Tensor, nn


def entropy(logits: Tensor) -> Tensor:
    probabilities = logits.softmax(dim=1)
    return (-(probabilities * (probabilities + 1e-12).log()).sum(dim=1)).mean()


class FewShotClassifier(nn.Module):
    def __init__(self, backbone: nn.Module, use_softmax: bool = False):
        super().__init__()
        self.backbone = backbone
        self.use_softmax = use_softmax
        self.prototypes = torch.tensor(())
        self.support_features = torch.tensor(())
        self.support_labels = torch.tensor(())

    def process_support_set(self, support_images: Tensor, support_labels: Tensor):
        self.support_labels = support_labels
        self.support_features = self.backbone(support_images)
        n_way = int(support_labels.max()) + 1
        self.prototypes = torch.cat([
            self.support_features[support_labels == label].mean(0, keepdim=True)
            for label in range(n_way)
        ])

    def l2_distance_to_prototypes(self, samples: Tensor) -> Tensor:
        return -torch.cdist(samples, self.prototypes)

    def softmax_if_specified(self, output: Tensor) -> Tensor:
        return output.softmax(-1) if self.use_softmax else output


class TransductiveFinetuning(FewShotClassifier):
    def __init__(self, *args, fine_tuning_steps: int = 5, fine_tuning_lr: float = 5e-5, **kwargs):
        super().__init__(*args, **kwargs)
        self.fine_tuning_steps = fine_tuning_steps
        self.fine_tuning_lr = fine_tuning_lr

    def process_support_set(self, support_images, support_labels):
        with torch.no_grad():
            super().process_support_set(support_images, support_labels)

    def forward(self, query_images: Tensor) -> Tensor:
        query_features = self.backbone.forward(query_images)
        with torch.enable_grad():
            self.prototypes.requires_grad_()
            optimizer = torch.optim.Adam([self.prototypes], lr=self.fine_tuning_lr)
            for _ in range(self.fine_tuning_steps):
                support_cross_entropy = nn.functional.cross_entropy(
                    self.l2_distance_to_prototypes(self.support_features), self.support_labels)
                query_conditional_entropy = entropy(
                    self.l2_distance_to_prototypes(query_features.detach()))
                loss = support_cross_entropy + query_conditional_entropy
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        return self.softmax_if_specified(self.l2_distance_to_prototypes(query_features)).detach()


LOSS_FUNCTION = nn.CrossEntropyLoss()


def training_epoch(model_, data_loader, optimizer):
    all_loss = []
    model_.train()
    for support_images, support_labels, images, labels in data_loader:
        optimizer.zero_grad()
        model_.process_support_set(support_images, support_labels)
        loss = LOSS_FUNCTION(model_(images), labels)
        loss.backward()  # expect: GG106
        optimizer.step()
        all_loss.append(loss.item())
    return sum(all_loss) / len(all_loss)


def main():
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16))
    model = TransductiveFinetuning(backbone)
    train_optimizer = torch.optim.SGD(backbone.parameters(), lr=0.01, momentum=0.9)
    n_way, n_shot, n_query = 5, 2, 3
    episodes = []
    for _ in range(3):
        s_labels = torch.arange(n_way).repeat_interleave(n_shot)
        q_labels = torch.arange(n_way).repeat_interleave(n_query)
        episodes.append((torch.randn(len(s_labels), 32), s_labels, torch.randn(len(q_labels), 32), q_labels))
    for epoch in range(2):
        print(f"Epoch {epoch}")
        average_loss = training_epoch(model, episodes, train_optimizer)
        print(average_loss)


if __name__ == "__main__":
    main()
