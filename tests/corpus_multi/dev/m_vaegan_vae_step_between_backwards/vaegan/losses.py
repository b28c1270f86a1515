import torch
import torch.nn as nn

MSECriterion = nn.MSELoss()


def loss_function(recon_x, x, mean, logstd):
    MSE = MSECriterion(recon_x, x)
    var = torch.pow(torch.exp(logstd), 2)
    KLD = -0.5 * torch.sum(1 + torch.log(var) - torch.pow(mean, 2) - var)
    return MSE + KLD
