# corpus: CITE zero-shot CLIP baseline; CLIPTextHead.__init__ (cite/clip_models.py) computes logit_scale.exp() once with autograd on, and every training iteration's loss reuses that graph, so the runner's second backward fails
# raises: RuntimeError: Trying to backward through the graph a second time
# source: https://github.com/Yunkun-Zhang/CITE/issues/3
import torch

from cite import CLIPImageBackbone, CLIPTextHead, ImageClassifier, IterBasedRunner

arch = "ViT-B/16"
TEXTS = ["Well differentiated tubular adenocarcinoma",
         "Moderately differentiated tubular adenocarcinoma",
         "Poorly differentiated adenocarcinoma"]
prompt = "{}"


def main():
    torch.manual_seed(0)
    model = ImageClassifier(
        backbone=CLIPImageBackbone(arch=arch),
        head=CLIPTextHead(arch=arch, texts=[prompt.format(t) for t in TEXTS]))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
    data = [dict(img=torch.rand(4, 3, 16, 16), gt_label=torch.randint(0, 3, (4,))) for _ in range(2)]
    runner = IterBasedRunner(model, optimizer, max_iters=4)
    runner.run(data)  # also: GG103


if __name__ == "__main__":
    main()
