"""Start ``accelerate launch --multi_gpu --num_processes N accelerate_rank.py`` as a
subprocess, as a training script's driver does.

``python accelerate_launch.py [N]`` (default 2): the launcher and its ranks are Python
processes started by this one; under ``ferry run --simulate cuda --device-count N`` each
rank must get its own simulated GPU and an NCCL group.
"""

import os
import subprocess
import sys

n = sys.argv[1] if len(sys.argv) > 1 else "2"
rank = os.path.join(os.path.dirname(os.path.abspath(__file__)), "accelerate_rank.py")
cmd = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", n,
       "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no", rank]
sys.exit(subprocess.run(cmd, check=False).returncode)
