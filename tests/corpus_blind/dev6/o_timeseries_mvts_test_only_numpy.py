# corpus: time-series transformer regression runner (mvts_transformer style); the --test_only path calls SupervisedRunner.evaluate() directly instead of through the no_grad evaluate() helper, so predictions.cpu().numpy() runs on a tensor that requires grad
# raises: RuntimeError: Can't call numpy() on Tensor that requires grad
# source: https://github.com/gzerveas/mvts_transformer/issues/24
import argparse
import logging
import math
import time
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

logging.basicConfig(format="%(asctime)s | %(levelname)s : %(message)s", level=logging.INFO)
logger = logging.getLogger(__name__)


class LearnablePositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=64, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        self.pe = nn.Parameter(torch.empty(max_len, 1, d_model))
        nn.init.uniform_(self.pe, -0.02, 0.02)

    def forward(self, x):
        x = x + self.pe[: x.size(0), :]
        return self.dropout(x)


class TSTransformerEncoderClassiregressor(nn.Module):
    """Transformer encoder over a multivariate series, followed by a flattening regression head."""

    def __init__(self, feat_dim, max_len, d_model, n_heads, num_layers, dim_feedforward, num_classes, dropout=0.1):
        super().__init__()
        self.max_len = max_len
        self.d_model = d_model
        self.n_heads = n_heads
        self.project_inp = nn.Linear(feat_dim, d_model)
        self.pos_enc = LearnablePositionalEncoding(d_model, max_len=max_len, dropout=dropout)
        encoder_layer = nn.TransformerEncoderLayer(d_model, n_heads, dim_feedforward, dropout)
        self.transformer_encoder = nn.TransformerEncoder(encoder_layer, num_layers, enable_nested_tensor=False)
        self.act = F.gelu
        self.dropout1 = nn.Dropout(dropout)
        self.num_classes = num_classes
        self.output_layer = nn.Linear(d_model * max_len, num_classes)

    def forward(self, X, padding_masks):
        inp = X.permute(1, 0, 2)
        inp = self.project_inp(inp) * math.sqrt(self.d_model)
        inp = self.pos_enc(inp)
        output = self.transformer_encoder(inp, src_key_padding_mask=~padding_masks)
        output = self.act(output)
        output = output.permute(1, 0, 2)
        output = self.dropout1(output)
        output = output * padding_masks.unsqueeze(-1)
        output = output.reshape(output.shape[0], -1)
        return self.output_layer(output)


def make_dataloader(num_batches, batch_size, seq_len, feat_dim, num_labels, seed):
    g = torch.Generator().manual_seed(seed)
    batches = []
    for b in range(num_batches):
        X = torch.randn(batch_size, seq_len, feat_dim, generator=g)
        targets = X[:, -4:, :num_labels].mean(dim=1) + 0.1 * torch.randn(batch_size, num_labels, generator=g)
        padding_masks = torch.ones(batch_size, seq_len, dtype=torch.bool)
        IDs = list(range(b * batch_size, (b + 1) * batch_size))
        batches.append((X, targets, padding_masks, IDs))
    return batches


def l2_reg_loss(model):
    for name, param in model.named_parameters():
        if name == "output_layer.weight":
            return torch.sum(torch.square(param))


class BaseRunner(object):
    def __init__(self, model, dataloader, device, loss_module, optimizer=None, l2_reg=None, print_interval=10):
        self.model = model
        self.dataloader = dataloader
        self.device = device
        self.optimizer = optimizer
        self.loss_module = loss_module
        self.l2_reg = l2_reg
        self.print_interval = print_interval
        self.epoch_metrics = OrderedDict()

    def train_epoch(self, epoch_num=None):
        raise NotImplementedError("Please override in child class")

    def evaluate(self, epoch_num=None, keep_all=True):
        raise NotImplementedError("Please override in child class")

    def print_callback(self, i_batch, metrics, prefix=""):
        total_batches = len(self.dataloader)
        template = "{:5.1f}% | batch: {:9d} of {:9d}"
        content = [100 * (i_batch / total_batches), i_batch, total_batches]
        for met_name, met_value in metrics.items():
            template += "\t|\t{}".format(met_name) + ": {:g}"
            content.append(met_value)
        logger.info(prefix + template.format(*content))


class SupervisedRunner(BaseRunner):
    def train_epoch(self, epoch_num=None):
        self.model = self.model.train()
        epoch_loss = 0
        total_samples = 0
        for i, batch in enumerate(self.dataloader):
            X, targets, padding_masks, IDs = batch
            targets = targets.to(self.device)
            padding_masks = padding_masks.to(self.device)
            predictions = self.model(X.to(self.device), padding_masks)

            loss = self.loss_module(predictions, targets)  # (batch_size, num_labels)
            batch_loss = torch.sum(loss)
            mean_loss = batch_loss / len(loss)

            if self.l2_reg:
                total_loss = mean_loss + self.l2_reg * l2_reg_loss(self.model)
            else:
                total_loss = mean_loss

            self.optimizer.zero_grad()
            total_loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=4.0)
            self.optimizer.step()

            metrics = {"loss": mean_loss.item()}
            if i % self.print_interval == 0:
                ending = "" if epoch_num is None else "Epoch {} ".format(epoch_num)
                self.print_callback(i, metrics, prefix="Training " + ending)

            with torch.no_grad():
                total_samples += len(loss)
                epoch_loss += batch_loss.item()

        self.epoch_metrics["epoch"] = epoch_num
        self.epoch_metrics["loss"] = epoch_loss / total_samples
        return self.epoch_metrics

    def evaluate(self, epoch_num=None, keep_all=True):
        self.model = self.model.eval()
        epoch_loss = 0
        total_samples = 0
        per_batch = {"target_masks": [], "targets": [], "predictions": [], "metrics": [], "IDs": []}
        for i, batch in enumerate(self.dataloader):
            X, targets, padding_masks, IDs = batch
            targets = targets.to(self.device)
            padding_masks = padding_masks.to(self.device)
            predictions = self.model(X.to(self.device), padding_masks)

            loss = self.loss_module(predictions, targets)
            batch_loss = torch.sum(loss).cpu().item()
            mean_loss = batch_loss / len(loss)

            per_batch["targets"].append(targets.cpu().numpy())
            per_batch["predictions"].append(predictions.cpu().numpy())  # expect: GG110
            per_batch["metrics"].append([loss.cpu().numpy()])  # expect: GG110
            per_batch["IDs"].append(IDs)

            metrics = {"loss": mean_loss}
            if i % self.print_interval == 0:
                ending = "" if epoch_num is None else "Epoch {} ".format(epoch_num)
                self.print_callback(i, metrics, prefix="Evaluating " + ending)

            total_samples += len(loss)
            epoch_loss += batch_loss

        self.epoch_metrics["epoch"] = epoch_num
        self.epoch_metrics["loss"] = epoch_loss / total_samples
        if keep_all:
            return self.epoch_metrics, per_batch
        return self.epoch_metrics


def evaluate(evaluator):
    """Perform a single, one-off evaluation on an evaluator object (initialized with a dataset)"""
    eval_start_time = time.time()
    with torch.no_grad():
        aggr_metrics, per_batch = evaluator.evaluate(epoch_num=None, keep_all=True)
    logger.info("Evaluation runtime: %.3f s", time.time() - eval_start_time)
    return aggr_metrics, per_batch


def validate(val_evaluator, best_value, epoch):
    logger.info("Evaluating on validation set ...")
    with torch.no_grad():
        aggr_metrics, per_batch = val_evaluator.evaluate(epoch, keep_all=True)
    if aggr_metrics["loss"] < best_value:
        best_value = aggr_metrics["loss"]
    return aggr_metrics, best_value


def build_parser():
    parser = argparse.ArgumentParser(description="Run a transformer regression on multivariate time series")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--l2_reg", type=float, default=0.0)
    parser.add_argument("--d_model", type=int, default=16)
    parser.add_argument("--num_heads", type=int, default=2)
    parser.add_argument("--num_layers", type=int, default=1)
    parser.add_argument("--dim_feedforward", type=int, default=32)
    parser.add_argument("--test_only", choices={"testset", "fold_transduction"}, default="testset",
                        help="If set, no training will take place; instead, trained model will be loaded and evaluated on test set")
    return parser


def main(config):
    torch.manual_seed(0)
    device = torch.device("cpu")
    seq_len, feat_dim, num_labels = 12, 3, 2

    model = TSTransformerEncoderClassiregressor(feat_dim, seq_len, config.d_model, config.num_heads,
                                                config.num_layers, config.dim_feedforward, num_labels)
    loss_module = nn.MSELoss(reduction="none")
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)

    train_loader = make_dataloader(4, config.batch_size, seq_len, feat_dim, num_labels, seed=1)
    val_loader = make_dataloader(2, config.batch_size, seq_len, feat_dim, num_labels, seed=2)
    test_loader = make_dataloader(2, config.batch_size, seq_len, feat_dim, num_labels, seed=3)

    if config.test_only == "testset":  # Only evaluate and skip training
        test_evaluator = SupervisedRunner(model, test_loader, device, loss_module, print_interval=1)
        aggr_metrics_test, per_batch_test = test_evaluator.evaluate(keep_all=True)
        print_str = "Test Summary: "
        for k, v in aggr_metrics_test.items():
            print_str += "{}: {} | ".format(k, v)
        logger.info(print_str)
        return

    trainer = SupervisedRunner(model, train_loader, device, loss_module, optimizer, l2_reg=config.l2_reg)
    val_evaluator = SupervisedRunner(model, val_loader, device, loss_module)
    best_value = 1e16
    for epoch in range(1, config.epochs + 1):
        trainer.train_epoch(epoch)
        _, best_value = validate(val_evaluator, best_value, epoch)
    evaluate(SupervisedRunner(model, test_loader, device, loss_module))


if __name__ == "__main__":
    main(build_parser().parse_args())
