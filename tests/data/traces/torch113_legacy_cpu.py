import torch, sys, os, threading
from torch.profiler import profile, record_function, ProfilerActivity, schedule, tensorboard_trace_handler
torch.manual_seed(0); torch.set_num_threads(2)
out, worker, gz = sys.argv[1], sys.argv[2], sys.argv[3] == "gz"
slow = len(sys.argv) > 4 and sys.argv[4] == "slow"
class DS(torch.utils.data.Dataset):
    def __len__(self): return 64
    def __getitem__(self, i): return torch.randn(3,16,16), i % 10
dl = torch.utils.data.DataLoader(DS(), batch_size=8, num_workers=2)
model = torch.nn.Sequential(torch.nn.Conv2d(3,8,3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(8*14*14,10))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
@torch.jit.script
def scripted(a: torch.Tensor) -> torch.Tensor:
    return torch.tanh(a) * 2 + 1
w = torch.randn(128,128)
def side():
    with record_function("side_thread"):
        for _ in range(3): (w @ w).sum()
kw = {} if worker == "default" else {"worker_name": worker}
with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
             on_trace_ready=tensorboard_trace_handler(out, use_gzip=gz, **kw), record_shapes=True,
             profile_memory=True, with_stack=True, with_flops=True, with_modules=True) as p:
    for i, (x, y) in enumerate(dl):
        t = threading.Thread(target=side); t.start()
        with record_function("train_step"):
            opt.zero_grad()
            with record_function("fwd"):
                out_ = model(x); out_ = scripted(out_)
                if slow:
                    with record_function("extra"):
                        for _ in range(4): (w @ w)
            loss = torch.nn.functional.cross_entropy(out_, y)
            with record_function("bwd"):
                loss.backward()
            opt.step()
        t.join(); p.step()
