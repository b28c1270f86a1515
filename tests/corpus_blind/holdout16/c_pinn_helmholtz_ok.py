# corpus: Thermodynamics PINN predicting the Helmholtz free energy F(T, rho) whose physics terms (S, P, U, Cv) come from first and second input derivatives taken with autograd.grad(create_graph=True), so the derivative-based losses train the network; correct.
# source: https://discuss.pytorch.org/t/custom-physics-informed-loss-function-not-converging-for-pinn-thermodynamics-model/221725
import torch
import torch.nn as nn


class HelmholtzNet(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)


def reference_properties(T, rho, R=8.314e-3):
    """Ideal-gas-like reference: F = R T (log rho - 1.5 log T), from which S, P, U, Cv follow."""
    F = R * T * (torch.log(rho) - 1.5 * torch.log(T))
    S = -R * (torch.log(rho) - 1.5 * torch.log(T)) + 1.5 * R
    P = rho * R * T
    U = F + T * S
    Cv = torch.full_like(T, 1.5 * R)
    return F, S, P, U, Cv


def make_dataset(n=64):
    T = torch.rand(n, 1) * 200 + 100
    rho = torch.rand(n, 1) * 9 + 1
    F, S, P, U, Cv = reference_properties(T, rho)
    stats = {k: (v.mean(), v.std()) for k, v in dict(T=T, rho=rho, F=F, S=S, P=P, U=U, Cv=Cv).items()}
    return (T, rho), (F, S, P, U, Cv), stats


def custom_loss(outputs_F_scaled, targets_F_scaled, inputs_X, targets, stats):
    """Data fidelity on F plus physics constraints on S, P, U, Cv obtained by automatic differentiation."""
    mse = nn.MSELoss()
    mse_F_loss = mse(outputs_F_scaled, targets_F_scaled)
    (rho_mean, rho_std), (T_mean, T_std), (F_mean, F_std) = stats["rho"], stats["T"], stats["F"]

    grad_output = torch.autograd.grad(outputs=outputs_F_scaled.sum(), inputs=inputs_X,
                                      create_graph=True, retain_graph=True)[0]
    dF_drho_scaled = grad_output[:, 0:1]
    dF_dT_scaled = grad_output[:, 1:2]
    d2F_dT2_scaled = torch.autograd.grad(outputs=dF_dT_scaled.sum(), inputs=inputs_X,
                                         create_graph=True, retain_graph=True)[0][:, 1:2]

    rho = inputs_X[:, 0:1] * rho_std + rho_mean
    T = inputs_X[:, 1:2] * T_std + T_mean
    F = outputs_F_scaled * F_std + F_mean
    dF_drho = dF_drho_scaled * F_std / rho_std
    dF_dT = dF_dT_scaled * F_std / T_std
    d2F_dT2 = d2F_dT2_scaled * F_std / T_std ** 2

    S_pred = -dF_dT
    P_pred = rho ** 2 * dF_drho
    U_pred = F + T * S_pred
    Cv_pred = -T * d2F_dT2

    S_t, P_t, U_t, Cv_t = targets
    def scaled(pred, tgt, key):
        m, s = stats[key]
        return mse((pred - m) / s, (tgt - m) / s)

    physics = scaled(S_pred, S_t, "S") + scaled(P_pred, P_t, "P") + scaled(U_pred, U_t, "U") + \
        mse(Cv_pred / stats["Cv"][0], Cv_t / stats["Cv"][0])
    return mse_F_loss + 0.1 * physics, mse_F_loss, physics


def train(model, data, targets, stats, epochs=30):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    (T, rho) = data
    F, S, P, U, Cv = targets
    inputs_X = torch.cat([(rho - stats["rho"][0]) / stats["rho"][1], (T - stats["T"][0]) / stats["T"][1]], dim=1)
    inputs_X.requires_grad_(True)
    targets_F_scaled = (F - stats["F"][0]) / stats["F"][1]
    for epoch in range(epochs):
        optimizer.zero_grad()
        outputs_F_scaled = model(inputs_X)
        loss, data_loss, physics_loss = custom_loss(outputs_F_scaled, targets_F_scaled, inputs_X, (S, P, U, Cv), stats)
        loss.backward()
        optimizer.step()
        if epoch % 10 == 0:
            print(f"epoch {epoch} total {loss.item():.4f} data {data_loss.item():.4f} physics {physics_loss.item():.4f}")


def main():
    torch.manual_seed(0)
    data, targets, stats = make_dataset()
    train(HelmholtzNet(), data, targets, stats)


if __name__ == "__main__":
    main()
