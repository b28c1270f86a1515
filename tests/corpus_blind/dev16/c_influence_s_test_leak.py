# corpus: Influence-function s_test estimate (LiSSA recursion of Hessian-vector products); h_estimate is rebuilt from create_graph HVPs every recursion step and never detached, so it drags every step's double-backward graph along and memory grows with the recursion depth.
# source: https://github.com/nimarb/pytorch_influence_functions/issues/6
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import grad
from torch.utils.data import DataLoader, TensorDataset


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def calc_loss(y, t):
    return F.cross_entropy(y, t)


def grad_z(z, t, model):
    model.eval()
    y = model(z)
    loss = calc_loss(y, t)
    params = [p for p in model.parameters() if p.requires_grad]
    return list(grad(loss, params, create_graph=True))


def hvp(y, w, v):
    first_grads = grad(y, w, retain_graph=True, create_graph=True)
    elemwise_products = 0
    for grad_elem, v_elem in zip(first_grads, v):
        elemwise_products += torch.sum(grad_elem * v_elem)
    return grad(elemwise_products, w, create_graph=True)


def s_test(z_test, t_test, model, z_loader, damp=0.01, scale=25.0, recursion_depth=5):
    v = grad_z(z_test, t_test, model)
    h_estimate = v.copy()
    for i in range(recursion_depth):
        for x, t in z_loader:
            y = model(x)
            loss = calc_loss(y, t)
            params = [p for p in model.parameters() if p.requires_grad]
            hv = hvp(loss, params, h_estimate)
            h_estimate = [_v + (1 - damp) * _h_e - _hv / scale for _v, _h_e, _hv in zip(v, h_estimate, hv)]  # expect: GG301
            break
    return h_estimate


def calc_influence_single(model, train_loader, test_loader, test_id_num, recursion_depth=5):
    z_test, t_test = test_loader.dataset[test_id_num]
    z_test, t_test = z_test[None], t_test[None]
    s_test_vec = s_test(z_test, t_test, model, train_loader, recursion_depth=recursion_depth)
    train_dataset_size = len(train_loader.dataset)
    influences = []
    for i in range(train_dataset_size):
        z, t = train_loader.dataset[i]
        grad_z_vec = grad_z(z[None], t[None], model)
        tmp_influence = -sum(torch.sum(k * j).data for k, j in zip(grad_z_vec, s_test_vec)) / train_dataset_size
        influences.append(tmp_influence.cpu())
    return influences, s_test_vec


def main():
    torch.manual_seed(0)
    x = torch.randn(32, 10)
    t = torch.randint(0, 3, (32,))
    train_loader = DataLoader(TensorDataset(x, t), batch_size=8, shuffle=True)
    test_loader = DataLoader(TensorDataset(torch.randn(4, 10), torch.randint(0, 3, (4,))), batch_size=1)
    model = SmallNet()
    influences, _ = calc_influence_single(model, train_loader, test_loader, test_id_num=0)
    harmful = sorted(range(len(influences)), key=lambda i: influences[i])[:3]
    print("most harmful training points:", harmful)


if __name__ == "__main__":
    main()
