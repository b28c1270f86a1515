# corpus: ReLeaSE-style REINFORCE fine-tuning of a stack-augmented GRU SMILES generator; the log-probability of each sampled character is turned into a Python float with .item() before it is accumulated, so rl_loss is a float and rl_loss.backward() fails
# raises: AttributeError: 'float' object has no attribute 'backward'
# source: https://github.com/isayev/ReLeaSE/issues/39
import argparse
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class GeneratorData(object):
    def __init__(self, alphabet="<>CNOc1=()"):
        self.all_characters = list(alphabet)
        self.n_characters = len(self.all_characters)
        self.char2idx = {c: i for i, c in enumerate(self.all_characters)}

    def char_tensor(self, string):
        return torch.tensor([self.char2idx[c] for c in string], dtype=torch.long)


class StackAugmentedRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size, stack_width=8, stack_depth=10, lr=0.01):
        super().__init__()
        self.hidden_size = hidden_size
        self.stack_width = stack_width
        self.stack_depth = stack_depth
        self.has_cell = False
        self.has_stack = True
        self.encoder = nn.Embedding(input_size, hidden_size)
        self.stack_controls_layer = nn.Linear(hidden_size, 3)
        self.stack_input_layer = nn.Linear(hidden_size, stack_width)
        self.rnn = nn.GRUCell(hidden_size + stack_width, hidden_size)
        self.decoder = nn.Linear(hidden_size, output_size)
        self.optimizer = torch.optim.Adadelta(self.parameters(), lr=lr)

    def init_hidden(self):
        return torch.zeros(1, self.hidden_size)

    def init_stack(self):
        return torch.zeros(1, self.stack_depth, self.stack_width)

    def stack_augmentation(self, input_val, prev_stack, controls):
        batch_size = prev_stack.size(0)
        controls = controls.view(-1, 3, 1, 1)
        zeros_at_the_bottom = torch.zeros(batch_size, 1, self.stack_width)
        a_push, a_pop, a_no_op = controls[:, 0], controls[:, 1], controls[:, 2]
        stack_down = torch.cat((prev_stack[:, 1:], zeros_at_the_bottom), dim=1)
        stack_up = torch.cat((input_val, prev_stack[:, :-1]), dim=1)
        return a_no_op * prev_stack + a_push * stack_up + a_pop * stack_down

    def forward(self, inp, hidden, stack):
        inp = self.encoder(inp.view(1, -1)).squeeze(1)
        stack_controls = F.softmax(self.stack_controls_layer(hidden), dim=1)
        stack_input = torch.tanh(self.stack_input_layer(hidden)).unsqueeze(1)
        stack = self.stack_augmentation(stack_input, stack, stack_controls)
        stack_top = stack[:, 0, :]
        hidden = self.rnn(torch.cat((inp, stack_top), dim=1), hidden)
        output = self.decoder(hidden)
        return output, hidden, stack

    def evaluate(self, data, prime_str="<", end_token=">", predict_len=20):
        with torch.no_grad():
            hidden = self.init_hidden()
            stack = self.init_stack()
            prime_input = data.char_tensor(prime_str)
            new_sample = prime_str
            for p in range(len(prime_str) - 1):
                _, hidden, stack = self.forward(prime_input[p], hidden, stack)
            inp = prime_input[-1]
            for p in range(predict_len):
                output, hidden, stack = self.forward(inp, hidden, stack)
                probs = torch.softmax(output.view(-1), dim=0)
                top_i = torch.multinomial(probs, 1)[0]
                predicted_char = data.all_characters[top_i]
                new_sample += predicted_char
                inp = data.char_tensor(predicted_char)[0]
                if predicted_char == end_token:
                    break
        if not new_sample.endswith(end_token):
            new_sample += end_token
        return new_sample


def get_reward_logp(smiles, predictor, invalid_reward=0.0):
    if len(smiles) == 0:
        return invalid_reward
    return float(predictor(smiles))


def toy_logp_predictor(smiles):
    return 1.0 + 0.1 * smiles.count("C") + 0.05 * smiles.count("c")


class Reinforcement(object):
    def __init__(self, generator, predictor, get_reward):
        super().__init__()
        self.generator = generator
        self.predictor = predictor
        self.get_reward = get_reward

    def policy_gradient(self, data, n_batch=10, gamma=0.97, grad_clipping=None, **kwargs):
        rl_loss = 0
        self.generator.optimizer.zero_grad()
        total_reward = 0

        for _ in range(n_batch):
            # Sampling new trajectory
            reward = 0
            trajectory = "<>"
            while reward == 0:
                trajectory = self.generator.evaluate(data)
                reward = self.get_reward(trajectory[1:-1], self.predictor, **kwargs)

            # Converting string of characters into tensor
            trajectory_input = data.char_tensor(trajectory)
            discounted_reward = reward
            total_reward += reward

            # Initializing the generator's hidden state
            hidden = self.generator.init_hidden()
            stack = self.generator.init_stack() if self.generator.has_stack else None

            # "Following" the trajectory and accumulating the loss
            for p in range(len(trajectory) - 1):
                output, hidden, stack = self.generator(trajectory_input[p], hidden, stack)
                log_probs = F.log_softmax(output, dim=1)
                top_i = trajectory_input[p + 1]
                rl_loss -= (log_probs[0, top_i].item() * discounted_reward)  # also: GG106
                discounted_reward = discounted_reward * gamma

        # Doing backward pass and parameters update
        rl_loss = rl_loss / n_batch
        total_reward = total_reward / n_batch
        rl_loss.backward()  # expect: GG106
        if grad_clipping is not None:
            torch.nn.utils.clip_grad_norm_(self.generator.parameters(), grad_clipping)

        self.generator.optimizer.step()
        return total_reward, rl_loss.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n_iterations", type=int, default=3)
    parser.add_argument("--n_batch", type=int, default=4)
    parser.add_argument("--hidden_size", type=int, default=32)
    args = parser.parse_args()

    torch.manual_seed(0)
    random.seed(0)
    gen_data = GeneratorData()
    generator = StackAugmentedRNN(gen_data.n_characters, args.hidden_size, gen_data.n_characters)
    rl = Reinforcement(generator, toy_logp_predictor, get_reward_logp)
    for i in range(args.n_iterations):
        reward, loss = rl.policy_gradient(gen_data, n_batch=args.n_batch, grad_clipping=5.0)
        print("iteration %d: reward %.3f, loss %.3f" % (i, reward, loss))


if __name__ == "__main__":
    main()
