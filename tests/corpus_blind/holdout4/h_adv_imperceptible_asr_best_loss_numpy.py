# corpus: imperceptible ASR attack (ART style), second stage: when the transcription already matches the target, the per-sample masking-threshold loss is stored as the best loss with loss_2nd_stage[idx].numpy() on a tensor that still requires grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/Trusted-AI/adversarial-robustness-toolbox/pull/1677
from typing import List, Optional

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

ALPHABET = "_abc"


class SpeechRecognizer(nn.Module):
    """Toy frame-level recogniser standing in for DeepSpeech."""

    def __init__(self, frame=4, n_chars=len(ALPHABET)):
        super().__init__()
        self.frame = frame
        self.net = nn.Sequential(nn.Linear(frame, 16), nn.Tanh(), nn.Linear(16, n_chars))

    def forward(self, audio):
        frames = audio.unfold(1, self.frame, self.frame)
        return self.net(frames)


class PyTorchSpeechEstimator:
    def __init__(self, model):
        self.model = model
        self.device = torch.device("cpu")

    @staticmethod
    def decode(logits):
        return np.array(["".join(ALPHABET[i] for i in row.tolist()) for row in logits.argmax(-1)])

    def transcribe(self, x):
        with torch.no_grad():
            return self.decode(self.model(torch.tensor(x)))

    def compute_loss_and_decoded_output(self, masked_adv_input, original_output, real_lengths):
        logits = self.model(masked_adv_input)
        targets = torch.tensor([[ALPHABET.index(c) for c in s] for s in original_output])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
        decoded_output = self.decode(logits.detach())
        return loss, decoded_output


class ImperceptibleASRPyTorch:
    def __init__(self, estimator, eps=0.05, alpha=0.05, max_iter_2=4, learning_rate_2=5e-4,
                 num_iter_increase_alpha=2, increase_factor_alpha=1.2, num_iter_decrease_alpha=3,
                 decrease_factor_alpha=0.8, initial_rescale=1.0, batch_size=2, global_max_length=16):
        self.estimator = estimator
        self.eps = eps
        self.alpha = alpha
        self.max_iter_2 = max_iter_2
        self.num_iter_increase_alpha = num_iter_increase_alpha
        self.increase_factor_alpha = increase_factor_alpha
        self.num_iter_decrease_alpha = num_iter_decrease_alpha
        self.decrease_factor_alpha = decrease_factor_alpha
        self.initial_rescale = initial_rescale
        self.global_optimal_delta = torch.zeros(batch_size, global_max_length, dtype=torch.float64, requires_grad=True)
        self.optimizer_2 = torch.optim.Adam(params=[self.global_optimal_delta], lr=learning_rate_2)

    def _forward_1st_stage(self, original_input, original_output, local_batch_size, local_max_length,
                           rescale, input_mask, real_lengths):
        local_delta = self.global_optimal_delta[:local_batch_size, :local_max_length]
        local_delta_rescale = torch.clamp(local_delta, -self.eps, self.eps).to(self.estimator.device)
        local_delta_rescale *= torch.tensor(rescale).to(self.estimator.device)
        adv_input = local_delta_rescale + torch.tensor(original_input).to(self.estimator.device)
        masked_adv_input = adv_input * torch.tensor(input_mask).to(self.estimator.device)
        loss, decoded_output = self.estimator.compute_loss_and_decoded_output(
            masked_adv_input=masked_adv_input, original_output=original_output, real_lengths=real_lengths
        )
        return loss, local_delta, decoded_output, masked_adv_input, local_delta_rescale

    def _psd_transform(self, delta, original_max_psd):
        frames = delta.unfold(0, 4, 2)
        psd = (frames * torch.hann_window(4, dtype=delta.dtype)).pow(2).mean(-1)
        return 96 - 10 * torch.log10(torch.tensor(original_max_psd)) + 10 * torch.log10(psd + 1e-12)

    def _forward_2nd_stage(self, local_delta_rescale, theta_batch, original_max_psd_batch):
        losses = []
        relu = torch.nn.ReLU()
        for i, _ in enumerate(theta_batch):
            psd_transform_delta = self._psd_transform(delta=local_delta_rescale[i, :], original_max_psd=original_max_psd_batch[i])
            loss = torch.mean(relu(psd_transform_delta - torch.tensor(theta_batch[i]).to(self.estimator.device)))
            losses.append(loss)
        return torch.stack(losses)

    def _attack_2nd_stage(self, x, y, theta_batch, original_max_psd_batch):
        local_batch_size = len(x)
        real_lengths = np.array([x_.shape[0] for x_ in x])
        local_max_length = np.max(real_lengths)

        alpha = np.array([self.alpha] * local_batch_size, dtype=np.float64)
        rescale = np.ones([local_batch_size, local_max_length], dtype=np.float64) * self.initial_rescale

        input_mask = np.zeros([local_batch_size, local_max_length], dtype=np.float64)
        original_input = np.zeros([local_batch_size, local_max_length], dtype=np.float64)
        for local_batch_size_idx in range(local_batch_size):
            input_mask[local_batch_size_idx, : len(x[local_batch_size_idx])] = 1
            original_input[local_batch_size_idx, : len(x[local_batch_size_idx])] = x[local_batch_size_idx]

        successful_adv_input: List[Optional[torch.Tensor]] = [None] * local_batch_size
        best_loss_2nd_stage = [np.inf] * local_batch_size
        trans = [None] * local_batch_size

        for iter_2nd_stage_idx in range(self.max_iter_2):
            self.optimizer_2.zero_grad()

            loss_1st_stage, _, decoded_output, masked_adv_input, local_delta_rescale = self._forward_1st_stage(
                original_input=original_input, original_output=y, local_batch_size=local_batch_size,
                local_max_length=local_max_length, rescale=rescale, input_mask=input_mask, real_lengths=real_lengths,
            )
            loss_2nd_stage = self._forward_2nd_stage(
                local_delta_rescale=local_delta_rescale, theta_batch=theta_batch, original_max_psd_batch=original_max_psd_batch,
            )

            loss = loss_1st_stage + torch.tensor(alpha).to(self.estimator.device) * loss_2nd_stage
            loss = torch.mean(loss)
            loss.backward()
            self.optimizer_2.step()

            # Save the best adversarial example and adjust the alpha coefficient
            for local_batch_size_idx in range(local_batch_size):
                if decoded_output[local_batch_size_idx] == y[local_batch_size_idx]:
                    if loss_2nd_stage[local_batch_size_idx].item() < best_loss_2nd_stage[local_batch_size_idx]:
                        best_loss_2nd_stage[local_batch_size_idx] = loss_2nd_stage[local_batch_size_idx].numpy()  # expect: GG110
                        successful_adv_input[local_batch_size_idx] = masked_adv_input[local_batch_size_idx].detach()
                        trans[local_batch_size_idx] = decoded_output[local_batch_size_idx]
                    if iter_2nd_stage_idx % self.num_iter_increase_alpha == 0:
                        alpha[local_batch_size_idx] *= self.increase_factor_alpha
                elif iter_2nd_stage_idx % self.num_iter_decrease_alpha == 0:
                    alpha[local_batch_size_idx] *= self.decrease_factor_alpha
                    alpha[local_batch_size_idx] = max(alpha[local_batch_size_idx], 0.0005)

            if iter_2nd_stage_idx == self.max_iter_2 - 1:
                for local_batch_size_idx in range(local_batch_size):
                    if successful_adv_input[local_batch_size_idx] is None:
                        successful_adv_input[local_batch_size_idx] = masked_adv_input[local_batch_size_idx].detach()
                        trans[local_batch_size_idx] = decoded_output[local_batch_size_idx]

        return torch.stack(successful_adv_input)


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    model = SpeechRecognizer().double()
    estimator = PyTorchSpeechEstimator(model)
    x = np.random.uniform(-0.5, 0.5, size=(2, 16))
    # first stage already reached the target transcription, the second stage makes it imperceptible
    y = estimator.transcribe(x)
    theta_batch = np.random.uniform(-20.0, 0.0, size=(2, 7))
    original_max_psd_batch = np.array([1.0, 1.0])
    attack = ImperceptibleASRPyTorch(estimator)
    adv = attack._attack_2nd_stage(x, y, theta_batch, original_max_psd_batch)
    print(adv.shape)


if __name__ == "__main__":
    main()
