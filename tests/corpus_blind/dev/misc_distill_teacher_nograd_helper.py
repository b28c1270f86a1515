# corpus: knowledge distillation precomputes teacher logits in a no_grad helper and the KD loss mixes them with student logits; the teacher never joins the graph (correct)
# source: https://github.com/haitongli/knowledge-distillation-pytorch/issues/25
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

PARAMS = {"alpha": 0.9, "temperature": 4.0, "lr": 0.05}


def fetch_teacher_outputs(teacher_model, dataloader):
    teacher_model.eval()
    outputs = []
    with torch.no_grad():
        for data_batch, _ in dataloader:
            outputs.append(teacher_model(data_batch))
    return outputs


def loss_fn_kd(outputs, labels, teacher_outputs, params):
    alpha, T = params["alpha"], params["temperature"]
    soft = nn.KLDivLoss(reduction="batchmean")(
        F.log_softmax(outputs / T, dim=1), F.softmax(teacher_outputs / T, dim=1)
    )
    return soft * (alpha * T * T) + F.cross_entropy(outputs, labels) * (1.0 - alpha)


def train_kd(model, teacher_outputs, optimizer, dataloader, params):
    model.train()
    summary = []
    for i, (train_batch, labels_batch) in enumerate(dataloader):
        output_batch = model(train_batch)
        loss = loss_fn_kd(output_batch, labels_batch, teacher_outputs[i], params)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        summary.append(loss.item())
    return summary


def main():
    teacher = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 5))
    student = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 5))
    loader = [(torch.randn(8, 10), torch.randint(0, 5, (8,))) for _ in range(3)]
    teacher_outputs = fetch_teacher_outputs(teacher, loader)
    optimizer = torch.optim.SGD(student.parameters(), lr=PARAMS["lr"])
    summary = train_kd(student, teacher_outputs, optimizer, loader, PARAMS)
    assert all(p.grad is not None for p in student.parameters())
    assert all(p.grad is None for p in teacher.parameters())
    assert all(t.grad_fn is None for t in teacher_outputs)
    assert all(isinstance(s, float) for s in summary)


if __name__ == "__main__":
    main()
