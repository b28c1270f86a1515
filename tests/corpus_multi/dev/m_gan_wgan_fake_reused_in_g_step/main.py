# corpus: WGAN package (wgan/models.py Generator+Discriminator, wgan/trainer.py critic loop): the critic step feeds the undetached fake_imgs to D, and the G step then reuses that same fake_imgs (gen_imgs is computed but unused), so G's backward re-enters the generator graph the critic backward already freed
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/eriklindernoren/PyTorch-GAN/issues/6
import torch

from wgan import WGANConfig, WGANTrainer


def make_batches(cfg, n_batches):
    return [torch.rand(cfg.batch_size, cfg.img_dim) * 2 - 1 for _ in range(n_batches)]


def main():
    torch.manual_seed(0)
    cfg = WGANConfig()
    trainer = WGANTrainer(cfg)
    batches = make_batches(cfg, 4)
    for epoch in range(2):
        history = trainer.train_epoch(batches)  # also: GG105
        print(f"[Epoch {epoch}] D loss {history[-1]['d_loss']:.4f} G loss {history[-1]['g_loss']:.4f}")


if __name__ == "__main__":
    main()
