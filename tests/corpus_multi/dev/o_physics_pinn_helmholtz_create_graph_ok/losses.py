import torch
import torch.nn as nn


def custom_loss(outputs_F_scaled, targets, inputs_X, sc, weights=(1.0, 0.1, 0.1, 0.1, 0.1)):
    """Data fidelity on F plus thermodynamic consistency (S, U, P, Cv) via autograd."""
    mse = nn.MSELoss()
    mse_F_loss = mse(outputs_F_scaled, targets["F"])

    # first-order derivatives of F_scaled w.r.t. (rho_scaled, T_scaled)
    grad_output = torch.autograd.grad(outputs=outputs_F_scaled.sum(), inputs=inputs_X,
                                      create_graph=True, retain_graph=True)[0]
    dF_drho_scaled = grad_output[:, 0].reshape(-1, 1)
    dF_dT_scaled = grad_output[:, 1].reshape(-1, 1)

    # second-order derivative d2F/dT2 (for Cv)
    d2F_dT2_scaled = torch.autograd.grad(outputs=dF_dT_scaled.sum(), inputs=inputs_X,
                                         create_graph=True, retain_graph=True)[0][:, 1].reshape(-1, 1)

    # unscale: chain rule through the Z-scores
    rho = inputs_X[:, 0:1] * sc.rho.std + sc.rho.mean
    T = inputs_X[:, 1:2] * sc.T.std + sc.T.mean
    F = outputs_F_scaled * sc.F.std + sc.F.mean
    dF_dT = dF_dT_scaled * sc.F.std / sc.T.std
    dF_drho = dF_drho_scaled * sc.F.std / sc.rho.std
    d2F_dT2 = d2F_dT2_scaled * sc.F.std / sc.T.std ** 2

    S_pred = -dF_dT
    U_pred = F + T * S_pred
    P_pred = rho * rho * dF_drho
    Cv_pred = -T * d2F_dT2

    mse_S = mse(sc.S.transform(S_pred), targets["S"])
    mse_U = mse(sc.U.transform(U_pred), targets["U"])
    mse_P = mse(sc.P.transform(P_pred), targets["P"])
    mse_Cv = mse(sc.Cv.transform(Cv_pred), targets["Cv"])

    w = weights
    total = w[0] * mse_F_loss + w[1] * mse_S + w[2] * mse_U + w[3] * mse_P + w[4] * mse_Cv
    parts = {"F": mse_F_loss.item(), "S": mse_S.item(), "U": mse_U.item(), "P": mse_P.item(), "Cv": mse_Cv.item()}
    return total, parts
