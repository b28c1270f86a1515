import torch


def extract_save_features(loader, model, device):
    """Run the frozen body once over the data; keep features in memory."""
    extracted = []
    with torch.no_grad():
        model.eval()
        for inputs, bboxes, labels in loader:
            inputs = inputs.to(device=device)
            features = model(inputs)
            extracted.append((features, bboxes, labels))
    return extracted


def train(model, loader, optimizer, device):
    """Train the two heads for one epoch on precomputed features."""
    bbox_loss = torch.nn.SmoothL1Loss()
    bbox_reg_loss = torch.nn.L1Loss(reduction='sum')
    class_loss = torch.nn.CrossEntropyLoss()

    alpha_bbox = 20.0

    model.train()
    N = 0
    regression_loss, correct = 0.0, 0
    for i, (inputs, bboxes, labels) in enumerate(loader):
        inputs, bboxes, labels = inputs.to(device=device), bboxes.to(device=device), labels.to(device=device)

        # Compute the forward propagation
        outputs = model(inputs)

        b_loss = alpha_bbox * bbox_loss(outputs[0], bboxes)
        c_loss = class_loss(outputs[1], labels)

        # Accumulate the number of processed samples
        N += inputs.shape[0]

        # For the total loss
        regression_loss += bbox_reg_loss(outputs[0], bboxes).item() / 4.0

        # For the total accuracy
        predicted_targets = outputs[1].argmax(dim=1)
        correct += (predicted_targets == labels).sum().item()

        # Backward and optimize
        optimizer.zero_grad()
        b_loss.backward()
        c_loss.backward()
        try:
            model.penalty().backward()
        except AttributeError:
            pass
        optimizer.step()

        print("bbox loss : {:.4f}, classification Acc : {:.4f}".format(regression_loss / N, correct / N))
    return regression_loss / N, correct / N
