# corpus: Levenberg-Marquardt fit of a differentiable ray-tracing model builds the tall Jacobian column by column with the double-backward trick, calling autograd.grad on one graph once per column with retain_graph=True, and only updates the parameters under no_grad after the Jacobian is complete (correct repeated passes).
# source: https://github.com/vccimaging/DiffDeflectometry/blob/885e8b612893d01eace539219cb0f167a5f0bd7a/diffmetrology/solvers.py
import torch
import torch.autograd.functional as F


class PrettyPrinter:
    def __str__(self):
        return self.__class__.__name__


class Optimization(PrettyPrinter):
    def __init__(self, diff_variables):
        self.diff_variables = diff_variables
        for v in self.diff_variables:
            v.requires_grad = True


class LM(Optimization):
    """The Levenberg-Marquardt algorithm."""

    def __init__(self, diff_variables, lamb, mu=None, option='diag'):
        Optimization.__init__(self, diff_variables)
        self.lamb = lamb
        self.mu = 2.0 if mu is None else mu
        self.option = option

    def jacobian(self, func, inputs, create_graph=False, strict=False):
        Js = []
        outputs = func()
        M = outputs.shape
        grad_outputs = (torch.zeros_like(outputs, requires_grad=True),)
        for x in inputs:
            grad_inputs = F._autograd_grad((outputs,), x, grad_outputs, create_graph=True)
            F._check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
            N = torch.numel(x)
            if N == 1:
                J = F._autograd_grad(grad_inputs, grad_outputs, (torch.ones_like(x),),
                                     create_graph=create_graph, retain_graph=True)[0][..., None]
            else:
                J = torch.zeros((*M, N), device=x.device)
                v = torch.zeros(N, device=x.device)
                for i in range(N):
                    v[i] = 1.0
                    J[..., i] = F._autograd_grad(grad_inputs, grad_outputs, (v.view(x.shape),),
                                                 create_graph=create_graph, retain_graph=True)[0]
                    v[i] = 0.0
            Js.append(J)
        return torch.cat(Js, axis=-1)

    def optimize(self, func, change_parameters, func_yref_y, maxit=10):
        Ns = [x.numel() for x in self.diff_variables]
        NS = [[*x.shape] for x in self.diff_variables]
        ls = []
        lamb = self.lamb
        for it in range(maxit):
            y = func()
            with torch.no_grad():
                L = torch.mean(func_yref_y(y) ** 2).item()
                if L < 1e-16:
                    break
            J = self.jacobian(func, self.diff_variables, create_graph=False)
            J = J.view(-1, J.shape[-1])
            JtJ = J.T @ J
            R = torch.diag(torch.diag(JtJ).abs())
            bb = [torch.autograd.grad(outputs=y, inputs=x, grad_outputs=func_yref_y(y), retain_graph=True)[0]
                  for x in self.diff_variables]
            b = torch.cat([bx.reshape(-1).detach() for bx in bb], axis=-1)
            del J, bb, y
            L_current = L + 1.0
            it_inner = 0
            while L_current >= L:
                it_inner += 1
                if it_inner > 20:
                    break
                x_delta = torch.linalg.solve(JtJ + lamb * R, b)
                x_delta_s = [torch.reshape(d, s) for d, s in zip(torch.split(x_delta, Ns), NS)]
                self.diff_variables = change_parameters(x_delta_s, sign=True)
                with torch.no_grad():
                    L_current = torch.mean(func_yref_y(func()) ** 2).item()
                if L_current < L:
                    lamb /= self.mu
                    break
                lamb *= 2.0 * self.mu
                self.diff_variables = change_parameters(x_delta_s, sign=False)
            ls.append(L)
            print('iter = {}: loss = {:.4e}'.format(it, L))
        return ls


class Lensgroup:
    """Toy differentiable deflectometry: screen displacement of rays deflected by one surface."""

    def __init__(self):
        self.c = torch.tensor(0.5)
        self.k = torch.tensor([0.1, -0.2])
        self.d = torch.tensor(1.0)
        self.pupil = torch.linspace(-1.0, 1.0, 24)

    def trace(self):
        r = self.pupil
        slope = torch.tanh(self.c * r + self.k[0] * r ** 2)
        return self.d * slope + self.k[1] * r ** 3


def main():
    torch.manual_seed(0)
    lens = Lensgroup()
    with torch.no_grad():
        c_true, k_true, d_true = 0.8, torch.tensor([0.3, -0.1]), 1.3
        lens_ref = Lensgroup()
        lens_ref.c, lens_ref.k, lens_ref.d = torch.tensor(c_true), k_true, torch.tensor(d_true)
        y_ref = lens_ref.trace()

    def func():
        return lens.trace()

    def func_yref_y(y):
        return y_ref - y

    def change_parameters(x_delta, sign=True):
        s = 1.0 if sign else -1.0
        with torch.no_grad():
            lens.c += s * x_delta[0]
            lens.k += s * x_delta[1]
            lens.d += s * x_delta[2]
        return [lens.c, lens.k, lens.d]

    optimizer = LM([lens.c, lens.k, lens.d], lamb=1e-2)
    ls = optimizer.optimize(func, change_parameters, func_yref_y, maxit=8)
    assert ls[-1] < ls[0]
    print("fitted c, k, d:", lens.c.item(), lens.k.tolist(), lens.d.item())


if __name__ == "__main__":
    main()
