# corpus: correct: PINN for the Helmholtz free energy; losses.custom_loss takes first and second input-derivatives with autograd.grad(create_graph=True), so the physics terms train the network from main.py's loop
# source: https://discuss.pytorch.org/t/custom-physics-informed-loss-function-not-converging-for-pinn-thermodynamics-model/221725
import torch

from losses import custom_loss
from model import HelmholtzNet
from scaling import Scalers, ZScore


def ideal_gas_table(n=32):
    """Synthetic reduced-unit ideal-gas data: F = T (ln rho - 1.5 ln T)."""
    rho = torch.rand(n, 1) * 0.9 + 0.1
    T = torch.rand(n, 1) * 2.0 + 0.5
    F = T * (torch.log(rho) - 1.5 * torch.log(T))
    S = -(torch.log(rho) - 1.5 * torch.log(T)) + 1.5
    U = 1.5 * T
    P = rho * T
    Cv = torch.full_like(T, 1.5) + 0.2 * torch.randn_like(T)
    return dict(rho=rho, T=T, F=F, S=S, U=U, P=P, Cv=Cv)


def main():
    torch.manual_seed(0)
    data = ideal_gas_table()
    sc = Scalers(**{k: ZScore.fit(v) for k, v in data.items()})
    X = torch.cat([sc.rho.transform(data["rho"]), sc.T.transform(data["T"])], dim=1)
    targets = {k: getattr(sc, k).transform(data[k]) for k in ("F", "S", "U", "P", "Cv")}

    model = HelmholtzNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batch = 16
    for epoch in range(2):
        perm = torch.randperm(X.shape[0])
        for i in range(0, X.shape[0], batch):
            idx = perm[i:i + batch]
            inputs_X = X[idx].clone().requires_grad_(True)
            outputs = model(inputs_X)
            loss, parts = custom_loss(outputs, {k: v[idx] for k, v in targets.items()}, inputs_X, sc)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: total {loss.item():.4f} " + " ".join(f"{k}={v:.3f}" for k, v in parts.items()))


if __name__ == "__main__":
    main()
