# corpus: SAN open-vocabulary segmentation with the CLIP text encoder unfrozen; CLIPTextEncoder (san/text_encoder.py) caches the class embeddings with their graph on the first forward and reuses them every iteration, so the second backward fails
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/open-mmlab/mmsegmentation/issues/3577
import torch

from san import CLIPTextEncoder, MultimodalEncoderDecoder


def train(model, optimizer, batches, max_iters=3):
    model.train()
    for it in range(max_iters):
        img, gt = batches[it % len(batches)]
        losses = model.loss(img, gt)
        loss = sum(losses.values())
        optimizer.zero_grad()
        loss.backward()  # also: GG104
        optimizer.step()
        print(f"iter {it}: loss_ce {loss.item():.4f}")


def main():
    torch.manual_seed(0)
    model = MultimodalEncoderDecoder(CLIPTextEncoder(dataset_name="tiny_voc"))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-4)
    batches = [(torch.rand(2, 3, 16, 16), torch.randint(0, 5, (2, 16, 16))) for _ in range(2)]
    train(model, optimizer, batches)


if __name__ == "__main__":
    main()
