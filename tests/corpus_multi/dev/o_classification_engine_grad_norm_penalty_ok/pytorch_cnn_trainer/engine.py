import time
from collections import OrderedDict

import torch

from pytorch_cnn_trainer import utils


def train_step(model, train_loader, criterion, device, optimizer, scheduler=None,
               num_batches: int = None, log_interval: int = 100, grad_penalty: bool = False):
    start_train_step = time.time()
    model.train()
    last_idx = len(train_loader) - 1
    losses_m = utils.AverageMeter()
    top1_m = utils.AverageMeter()
    top5_m = utils.AverageMeter()
    cnt = 0

    for batch_idx, (inputs, target) in enumerate(train_loader):
        last_batch = batch_idx == last_idx
        inputs = inputs.to(device)
        target = target.to(device)

        # zero the parameter gradients
        optimizer.zero_grad()
        output = model(inputs)
        loss = criterion(output, target)

        if grad_penalty is True:
            # Create gradients
            grad_params = torch.autograd.grad(loss, model.parameters(), create_graph=True)
            # Compute the L2 Norm as penalty and add that to loss
            grad_norm = 0
            for grad in grad_params:
                grad_norm += grad.pow(2).sum()
            grad_norm = grad_norm.sqrt()
            loss = loss + grad_norm

        loss.backward()
        optimizer.step()

        if scheduler is not None:
            scheduler.step()

        cnt += 1
        acc1, acc5 = utils.accuracy(output, target, topk=(1, 5))
        top1_m.update(acc1.item(), output.size(0))
        top5_m.update(acc5.item(), output.size(0))
        losses_m.update(loss.item(), inputs.size(0))

        if last_batch or batch_idx % log_interval == 0:
            print("Loss: {loss.val:>7.4f} ({loss.avg:>6.4f})  Top 1 Accuracy: {top1.val:>7.4f} ({top1.avg:>7.4f})".format(
                loss=losses_m, top1=top1_m))

        if num_batches is not None and cnt >= num_batches:
            break

    print(f"Time taken for train step = {time.time() - start_train_step:.3f} sec")
    return OrderedDict([("loss", losses_m.avg), ("top1", top1_m.avg), ("top5", top5_m.avg)])


def val_step(model, val_loader, criterion, device, num_batches=None, log_interval: int = 100):
    losses_m = utils.AverageMeter()
    top1_m = utils.AverageMeter()
    top5_m = utils.AverageMeter()
    model.eval()
    with torch.no_grad():
        for batch_idx, (inputs, target) in enumerate(val_loader):
            inputs = inputs.to(device)
            target = target.to(device)
            output = model(inputs)
            loss = criterion(output, target)
            acc1, acc5 = utils.accuracy(output, target, topk=(1, 5))
            reduced_loss = loss.data
            losses_m.update(reduced_loss.item(), inputs.size(0))
            top1_m.update(acc1.item(), output.size(0))
            top5_m.update(acc5.item(), output.size(0))
    return OrderedDict([("loss", losses_m.avg), ("top1", top1_m.avg), ("top5", top5_m.avg)])


def fit(epochs, model, train_loader, valid_loader, criterion, device, optimizer,
        scheduler=None, early_stopper=None, num_batches: int = None, log_interval: int = 100,
        grad_penalty: bool = False):
    history = {"train": {"loss": [], "top1_acc": []}, "val": {"loss": [], "top1_acc": []}}
    for epoch in range(epochs):
        print(f"Training Epoch = {epoch}")
        train_metrics = train_step(model, train_loader, criterion, device, optimizer, scheduler,
                                   num_batches, log_interval, grad_penalty)
        history["train"]["loss"].append(train_metrics["loss"])
        history["train"]["top1_acc"].append(train_metrics["top1"])

        valid_metrics = val_step(model, valid_loader, criterion, device, num_batches, log_interval)
        history["val"]["loss"].append(valid_metrics["loss"])
        history["val"]["top1_acc"].append(valid_metrics["top1"])

        if early_stopper is not None:
            early_stopper(valid_metrics["loss"], model=model)
            if early_stopper.early_stop:
                print("Early Stopping. Ran out of Patience for validation loss")
                break
    return history
