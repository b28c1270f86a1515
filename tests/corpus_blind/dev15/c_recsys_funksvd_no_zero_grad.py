# corpus: Hand-written biased matrix factorisation (P, Q, bu, bi updated under no_grad) for a ratings matrix never clears the .grad fields, so every epoch steps with the sum of all earlier gradients.
# source: https://github.com/nubol23/SCC5966-recommender-systems
import torch
import torch.nn as nn


def make_ratings(n_users=6, n_items=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(1, 6, (n_users, n_items), generator=g).float()


def init_factors(n_users, n_items, k=3):
    P = torch.rand(n_users, k, requires_grad=True)
    Q = torch.rand(n_items, k, requires_grad=True)
    bu = torch.rand(n_users, 1, requires_grad=True)
    bi = torch.rand(n_items, 1, requires_grad=True)
    return P, Q, bu, bi


def predict(P, Q, bu, bi, mu, ones_user, ones_item):
    Bu = torch.cat((bu, ones_user), dim=1)
    Bi = torch.cat((bi, ones_item), dim=1)
    return mu + Bu @ Bi.T + P @ Q.T


def fit_svd(ratings, k=3, lr=0.008, epochs=3):
    n_users, n_items = ratings.shape
    P, Q, bu, bi = init_factors(n_users, n_items, k)
    mu = ratings.sum() / (ratings != 0).sum()
    criterion = nn.MSELoss()
    ones_user = torch.ones(n_users, 1)
    ones_item = torch.ones(n_items, 1)
    history = []
    for i in range(epochs):
        pred = predict(P, Q, bu, bi, mu, ones_user, ones_item)
        loss = criterion(pred, ratings)
        history.append(loss.item())
        loss.backward()  # expect: GG201
        with torch.no_grad():
            P -= lr * P.grad
            Q -= lr * Q.grad
            bu -= lr * bu.grad
            bi -= lr * bi.grad
    return (P, Q, bu, bi), history


def main():
    torch.manual_seed(0)
    ratings = make_ratings()
    params, history = fit_svd(ratings)
    print("losses:", [round(h, 4) for h in history])


if __name__ == "__main__":
    main()
