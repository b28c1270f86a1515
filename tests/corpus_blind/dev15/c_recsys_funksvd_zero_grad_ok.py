# corpus: Hand-written biased matrix factorisation for a ratings matrix that updates P, Q, bu, bi under no_grad and clears every .grad after the update, so each epoch uses only its own gradient.
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
    params = init_factors(n_users, n_items, k)
    P, Q, bu, bi = params
    mu = ratings.sum() / (ratings != 0).sum()
    criterion = nn.MSELoss()
    ones_user = torch.ones(n_users, 1)
    ones_item = torch.ones(n_items, 1)
    history = []
    for i in range(epochs):
        pred = predict(P, Q, bu, bi, mu, ones_user, ones_item)
        loss = criterion(pred, ratings)
        history.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad
        grads_seen = [p.grad is not None for p in params]
        for p in params:
            p.grad.zero_()
    return params, history, grads_seen


def main():
    torch.manual_seed(0)
    ratings = make_ratings()
    params, history, grads_seen = fit_svd(ratings)
    assert all(grads_seen)
    print("losses:", [round(h, 4) for h in history], "grads reached params:", all(grads_seen))


if __name__ == "__main__":
    main()
