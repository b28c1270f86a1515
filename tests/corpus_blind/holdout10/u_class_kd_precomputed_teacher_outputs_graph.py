# corpus: knowledge-distillation script precomputes the teacher's outputs for every batch once, before the epoch loop, without no_grad/detach; each batch's KD loss backpropagates into that stored teacher graph, which fails when epoch 2 reuses it
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/haitongli/knowledge-distillation-pytorch/pull/16
import torch
import torch.nn as nn
import torch.nn.functional as F


class Params:
    def __init__(self, **kw):
        self.__dict__.update(kw)


class Net(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc1 = nn.Linear(20, hidden)
        self.fc2 = nn.Linear(hidden, 10)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        return self.fc2(self.dropout(F.relu(self.fc1(x))))


def loss_fn_kd(outputs, labels, teacher_outputs, params):
    alpha, T = params.alpha, params.temperature
    kd = nn.KLDivLoss(reduction="batchmean")(F.log_softmax(outputs / T, dim=1),
                                             F.softmax(teacher_outputs / T, dim=1)) * (alpha * T * T)
    return kd + F.cross_entropy(outputs, labels) * (1.0 - alpha)


def fetch_teacher_outputs(teacher_model, dataloader):
    teacher_model.train()
    teacher_outputs = []
    for data_batch, _ in dataloader:
        output_teacher_batch = teacher_model(data_batch)  # expect: GG103
        teacher_outputs.append(output_teacher_batch)
    return teacher_outputs


class RunningAverage:
    def __init__(self):
        self.steps, self.total = 0, 0.0

    def update(self, val):
        self.total += val
        self.steps += 1

    def __call__(self):
        return self.total / max(self.steps, 1)


def train_kd(model, teacher_outputs, optimizer, dataloader, params):
    model.train()
    loss_avg = RunningAverage()
    for i, (train_batch, labels_batch) in enumerate(dataloader):
        output_batch = model(train_batch)
        output_teacher_batch = teacher_outputs[i]
        loss = loss_fn_kd(output_batch, labels_batch, output_teacher_batch, params)
        optimizer.zero_grad()
        loss.backward()  # also: GG103
        optimizer.step()
        loss_avg.update(loss.item())
    return loss_avg()


def train_and_evaluate_kd(model, teacher_model, dataloader, optimizer, params):
    teacher_outputs = fetch_teacher_outputs(teacher_model, dataloader)
    for epoch in range(params.num_epochs):
        avg = train_kd(model, teacher_outputs, optimizer, dataloader, params)
        print(f"epoch {epoch}: kd loss {avg:.4f}")


def main():
    torch.manual_seed(0)
    params = Params(alpha=0.9, temperature=4.0, num_epochs=2, learning_rate=1e-3)
    dataloader = [(torch.randn(16, 20), torch.randint(0, 10, (16,))) for _ in range(3)]
    teacher, student = Net(hidden=64), Net(hidden=16)
    optimizer = torch.optim.Adam(student.parameters(), lr=params.learning_rate)
    train_and_evaluate_kd(student, teacher, dataloader, optimizer, params)


if __name__ == "__main__":
    main()
