def train_one_epoch(model, criterion, optimizer, batches, epoch, print_freq=2):
    model.train()
    running = 0.0
    for it, (image, target) in enumerate(batches):
        output = model(image)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()  # expect: GG109
        optimizer.step()
        running += loss.mean().item()
        if it % print_freq == 0:
            print(f"epoch {epoch} iter {it} floss {running / (it + 1):.4f}")
    return running / max(len(batches), 1)
