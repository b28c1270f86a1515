# corpus: point-cloud completion runner (models.py SpareNet-style generator, runners/sparenet_runner.py train_step, runners/misc.py AverageMeter): train_step feeds the meter coarse_loss*1000 / refine_loss*1000 tensors, so the meter's running sums chain every step's graph and keep the whole epoch's activations alive
# source: https://github.com/microsoft/SpareNet/issues/12
import torch

from runners.sparenet_runner import sparenetRunner


def make_loader(n_batches=5, batch_size=2):
    loader = []
    for i in range(n_batches):
        gt = torch.rand(batch_size, 36, 3) * 2 - 1
        partial = gt[:, :20] + 0.01 * torch.randn(batch_size, 20, 3)
        loader.append((f"taxonomy-{i}", {"partial_cloud": partial, "gtcloud": gt}))
    return loader


def main():
    torch.manual_seed(0)
    config = {"num_points": 36, "lr": 1e-3}
    runner = sparenetRunner(config)
    runner.build_models()
    runner.train(make_loader(), n_epochs=2)


if __name__ == "__main__":
    main()
