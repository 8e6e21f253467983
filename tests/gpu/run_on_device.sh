#!/usr/bin/env bash
# The project's GPU check (docs/benchmarks.md): fts and the gpu-labelled test programs built here, packed by
# tests/gpu/pack.sh as .dev/bundle.tgz, run on a GPU machine against its own torch / transformers / PEFT.
# Writes logs, JSON, profiles and the run store under $OUT; `report.py $OUT` prints the comparison.
# Sections run in the order of SECTIONS and each checks the time left (BUDGET seconds in all):
#   base      fts --version, fts doctor
#   gputests  every gpu-labelled suite (gpu_suites.txt)
#   speed, lora, ac   the 1.1B Llama full / LoRA r=16 all-linear / activation checkpointing, bf16, micro-batch
#             4 x 2048: fts (with deepspeed.wall_clock_breakdown and a 3-step training.profile) and the HF Trainer
#             (speed also runs the full fine-tune with FTS_FUSED_BLOCK_OPS=0: the unfused reference; UNFUSED=0 skips it)
#   fixed     fp32 fts vs transformers on a fixed batch, 20 steps;  bf16: stages BF16_STAGES (default 0-3) and
#             fp16 vs autocast
#   offload   ZeRO-2 with CPU optimizer offload on the 1.1B (OFFLOAD="cpu_s2 nvme_s2 cpu_s3p" for all)
#   qlora     the 1.1B QLoRA (NF4, double quant, r=16 all-linear) beside PEFT + bitsandbytes (carried as $BNB_PATH on
#             PYTHONPATH), and with FTS_CUDA_DEQUANT=0 (the LibTorch-ops dequantization)
#   qlorabig  QLoRA on a Qwen2.5-14B-shaped model (BIG=7b|14b) with random weights: load time and peak GPU memory
#   hfprofile torch.profiler over 3 steps of the Trainer's step (the kernels it runs, beside fts's)
#   probe     fts probe at stages 0-3;  gen: greedy generation cases;  oom: a batch that cannot fit
set -u
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/devout}; mkdir -p "$OUT"
W=/tmp/ftsdev; mkdir -p $W
T0=$(date +%s); BUDGET=${BUDGET:-480}
left() { echo $((BUDGET - ($(date +%s) - T0))); }
say() { echo "== [$(( $(date +%s) - T0 ))s] $*"; }
exec > >(tee -a "$OUT/run.log") 2>&1
PY=${PY:-python3}; export PYTHONUNBUFFERED=1
[ -x $W/fts/bin/fts ] || { mkdir -p $W/fts && tar xzf "$D/bundle.tgz" -C $W/fts; }
TL=$($PY -c 'import torch,os;print(os.path.dirname(torch.__file__)+"/lib")')
export LD_LIBRARY_PATH=$W/fts/lib:$TL:$TL/../../nvidia/cu13/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
FTS=$W/fts/bin/fts; S=$OUT/runs.sqlite; M=$W/models; DA=$W/data
export DEV_DEVICE=${DEV_DEVICE:-cuda}
SECTIONS=${SECTIONS:-base gputests speed lora ac hfprofile fixed offload probe}
OFFLOAD=${OFFLOAD:-cpu_s2}
cp -rn "$D/models" "$D/data" $W/ 2>/dev/null
OD=/dev/shm/ftso; [ "$(df --output=avail -B1G /dev/shm 2>/dev/null | tail -1)" -gt 60 ] 2>/dev/null || OD=$W/out
mkdir -p $OD
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"; echo "output dir: $OD ($(df -h $OD | tail -1))"
train() {  # name config [extra args]
  local n=$1 c=$2; shift 2
  [ "$(left)" -gt 40 ] || { say "skip $n (time)"; return 1; }
  say "fts train $n"
  timeout -k 10 $(( $(left) - 20 )) $FTS train "$c" --store "$S" --name "$n" --quiet "$@" > "$OUT/$n.log" 2>&1
  local rc=$?; say "$n rc=$rc"; tail -3 "$OUT/$n.log"
  if [ -d $OD/$n/profile ]; then  # training.profile's files (the trace compressed)
    mkdir -p "$OUT/profile_$n" && cp $OD/$n/profile/summary.* "$OUT/profile_$n/"
    gzip -c $OD/$n/profile/trace.json > "$OUT/profile_$n/trace.json.gz"; head -4 "$OUT/profile_$n/summary.txt"
  fi
  [ $n = full ] && [ -f $OD/full/final/config.json ] && rm -rf $M/llama-1b-ft && mv $OD/full/final $M/llama-1b-ft
  rm -rf $OD/$n; return $rc
}
cfg() { $PY "$D/dev.py" cfg "$@"; }

if [[ " $SECTIONS " == *" base "* ]]; then
  say base; timeout 30 $FTS --version || { ldd $FTS | grep -i "not found"; exit 3; }
  timeout 60 $FTS doctor --store "$S" > "$OUT/doctor.txt" 2>&1; cat "$OUT/doctor.txt" | head -20
fi

if [[ " $SECTIONS " == *" gputests "* ]]; then
  say "gpu-labelled test suites"
  while read -r prog suite; do
    timeout 180 $W/fts/bin/$prog $suite > "$OUT/gputest_$suite.log" 2>&1
    echo "$suite rc=$? $(grep -m1 '^Totals' "$OUT/gputest_$suite.log")"
  done < "$D/gpu_suites.txt"
fi

if [[ " $SECTIONS " == *" fixed "* ]]; then
  say "fixed batch: fp32 fts vs transformers"
  [ -f $M/llama-small/model.safetensors ] || $PY "$D/dev.py" prep $M $DA 256 8
  cfg $W/fixed32.json model.path=$M/llama-small model.init=pretrained data.train=$DA/fixed.jsonl \
      training.output_dir=$OD/fixed32
  train fixed32 $W/fixed32.json
  timeout 120 $PY "$D/dev.py" hf-fixed $M/llama-small $DA/fixed_ids.json 20 fp32 "$OUT/hf_fixed_fp32.json"
fi

if [[ " $SECTIONS " == *" gen "* ]] && [ -d "$D/generate" ]; then
  say "greedy generation on cuda vs transformers (hidden cases)"
  for a in gpt2 llama qwen2; do
    timeout 60 $FTS generate --model "$D/generate/$a" --device $DEV_DEVICE --max_new_tokens 20 --json \
      --prompt "Once upon a time" --prompt "The little dog ran to the" --prompt "She opened the door and saw" \
      > "$OUT/gen_$a.jsonl" 2> "$OUT/gen_$a.err" || { echo "$a failed"; tail -2 "$OUT/gen_$a.err"; }
  done
fi

if [[ " $SECTIONS " == *" speed "* ]]; then
  say "P1: 1.1B Llama, bf16, seq 2048, mb 4, full fine-tune"
  cfg $W/full.json model.path=$M/llama-1b data.train=$DA/stories.jsonl data.max_length=2048 \
      training.max_steps=30 training.output_dir=$OD/full deepspeed.bf16.enabled=true \
      deepspeed.train_micro_batch_size_per_gpu=4 deepspeed.optimizer.params.lr=1e-4 \
      deepspeed.wall_clock_breakdown=true 'training.profile={"wait":20,"active":3}'
  timeout 60 $FTS estimate $W/full.json --json > "$OUT/estimate_full.json" 2>&1
  train full $W/full.json
  timeout 150 $PY "$D/dev.py" hf-speed $M/llama-1b 4 2048 30 full "$OUT/hf_speed_full.json" > "$OUT/hf_full.log" 2>&1
  tail -2 "$OUT/hf_full.log"
  # the same run with the fused block kernels off (the ATen composition they replace), side by side (UNFUSED=0: not)
  if [ "${UNFUSED:-1}" = 1 ]; then
    sed "s#$OD/full#$OD/full_unfused#" $W/full.json > $W/full_unfused.json
    export FTS_FUSED_BLOCK_OPS=0; train full_unfused $W/full_unfused.json; unset FTS_FUSED_BLOCK_OPS
  fi
fi

if [[ " $SECTIONS " == *" bf16 "* ]]; then
  say "fixed batch: bf16 stages 0-3 and fp16 stage 2 vs transformers autocast"
  for st in ${BF16_STAGES:-0 1 2 3}; do
    cfg $W/b$st.json model.path=$M/llama-small model.init=pretrained data.train=$DA/fixed.jsonl \
        training.output_dir=$OD/bf16_s$st deepspeed.bf16.enabled=true deepspeed.zero_optimization.stage=$st
    train bf16_s$st $W/b$st.json
  done
  cfg $W/f16.json model.path=$M/llama-small model.init=pretrained data.train=$DA/fixed.jsonl \
      training.output_dir=$OD/fp16_s2 'deepspeed.fp16={"enabled":true,"initial_scale_power":16}' \
      deepspeed.zero_optimization.stage=2
  train fp16_s2 $W/f16.json
  timeout 90 $PY "$D/dev.py" hf-fixed $M/llama-small $DA/fixed_ids.json 20 bf16 "$OUT/hf_fixed_bf16.json"
fi

for mode in lora ac; do
  [[ " $SECTIONS " == *" $mode "* ]] || continue
  extra=model.activation_checkpointing=true; base=$M/llama-1b; init=random
  if [ $mode = lora ]; then
    extra='model.lora={"r":16,"lora_alpha":32,"target_modules":"all-linear"}'; init=pretrained; base=$M/llama-1b-ft
    [ -f $base/config.json ] || timeout 90 $PY "$D/dev.py" mkweights $M/llama-1b $base
  fi
  cfg $W/$mode.json model.path=$base model.init=$init data.train=$DA/stories.jsonl data.max_length=2048 \
      training.max_steps=20 training.output_dir=$OD/$mode deepspeed.bf16.enabled=true \
      deepspeed.train_micro_batch_size_per_gpu=4 deepspeed.optimizer.params.lr=1e-4 "$extra" \
      deepspeed.wall_clock_breakdown=true 'training.profile={"wait":12,"active":3}'
  timeout 60 $FTS estimate $W/$mode.json --json > "$OUT/estimate_$mode.json" 2>&1
  train $mode $W/$mode.json || continue
  [ "$(left)" -gt 80 ] && timeout $(( $(left) - 15 )) $PY "$D/dev.py" hf-speed $M/llama-1b 4 2048 20 $mode \
      "$OUT/hf_speed_$mode.json" > "$OUT/hf_$mode.log" 2>&1; tail -1 "$OUT/hf_$mode.log"
done

if [[ " $SECTIONS " == *" qlora "* ]]; then
  say "QLoRA: the 1.1B with an NF4 base (double quant, bf16 compute), LoRA r=16 all-linear, beside PEFT + bitsandbytes"
  base=$M/llama-1b-ft
  [ -f $base/config.json ] || timeout 90 $PY "$D/dev.py" mkweights $M/llama-1b $base
  QCFG='model.quantization={"load_in_4bit":true,"bnb_4bit_quant_type":"nf4","bnb_4bit_use_double_quant":true,"bnb_4bit_compute_dtype":"bfloat16"}'
  LCFG='model.lora={"r":16,"lora_alpha":32,"target_modules":"all-linear"}'
  qargs=(model.path=$base model.init=pretrained data.train=$DA/stories.jsonl data.max_length=2048
         deepspeed.bf16.enabled=true deepspeed.train_micro_batch_size_per_gpu=4 deepspeed.optimizer.params.lr=1e-4
         "$LCFG" "$QCFG" deepspeed.wall_clock_breakdown=true)
  cfg $W/qlora.json "${qargs[@]}" training.max_steps=20 training.output_dir=$OD/qlora \
      'training.profile={"wait":12,"active":3}'
  timeout 60 $FTS estimate $W/qlora.json --json > "$OUT/estimate_qlora.json" 2>&1
  train qlora $W/qlora.json
  [ "$(left)" -gt 100 ] && timeout $(( $(left) - 15 )) $PY "$D/dev.py" hf-speed $base 4 2048 20 qlora \
      "$OUT/hf_speed_qlora.json" > "$OUT/hf_qlora.log" 2>&1; tail -1 "$OUT/hf_qlora.log"
  # the LibTorch-ops dequantization (the reference path the CUDA kernel replaces), side by side
  cfg $W/qlora_ops.json "${qargs[@]}" training.max_steps=12 training.output_dir=$OD/qlora_ops
  export FTS_CUDA_DEQUANT=0; train qlora_ops $W/qlora_ops.json; unset FTS_CUDA_DEQUANT
fi

if [[ " $SECTIONS " == *" qlorabig "* ]] && [ "$(left)" -gt 200 ]; then
  say "QLoRA on a Qwen2.5-${BIG:-14b}-shaped model (random bf16 weights): peak GPU memory, micro-batch 1 x 2048, AC"
  timeout 150 $PY "$D/dev.py" mkbig $W/qwen-big ${BIG:-14b} $M/llama-1b > "$OUT/mkbig.log" 2>&1; tail -1 "$OUT/mkbig.log"
  cfg $W/qlora_big.json model.path=$W/qwen-big model.init=pretrained data.train=$DA/stories.jsonl \
      data.max_length=2048 training.max_steps=6 training.output_dir=$OD/qlora_big deepspeed.bf16.enabled=true \
      deepspeed.train_micro_batch_size_per_gpu=1 deepspeed.optimizer.params.lr=1e-4 model.activation_checkpointing=true \
      'model.lora={"r":16,"lora_alpha":32,"target_modules":"all-linear"}' \
      'model.quantization={"load_in_4bit":true,"bnb_4bit_quant_type":"nf4","bnb_4bit_use_double_quant":true,"bnb_4bit_compute_dtype":"bfloat16"}'
  timeout 60 $FTS estimate $W/qlora_big.json --json > "$OUT/estimate_qlora_big.json" 2>&1
  T1=$(date +%s); train qlora_big $W/qlora_big.json; echo "qlora_big wall $(( $(date +%s) - T1 )) s"
  rm -rf $W/qwen-big
fi

if [[ " $SECTIONS " == *" hfprofile "* ]] && [ "$(left)" -gt 90 ]; then
  say "torch.profiler of the Trainer's step (full fine-tune), beside fts's profile"
  timeout 80 $PY "$D/dev.py" hf-profile $M/llama-1b 4 2048 "$OUT/hf_profile_full.txt" > "$OUT/hf_profile.log" 2>&1
  tail -1 "$OUT/hf_profile.log"
fi

if [[ " $SECTIONS " == *" offload "* ]]; then
  say "ZeRO-Offload / Infinity on the GPU: the 1.1B ($OFFLOAD)"
  mkdir -p /tmp/nvme
  for v in $OFFLOAD; do
    st=2; extra=training.seed=42; oo='{"device":"cpu","pin_memory":true}'
    [ $v = nvme_s2 ] && oo='{"device":"nvme","nvme_path":"/tmp/nvme"}'
    [ $v = cpu_s3p ] && st=3 && extra='deepspeed.zero_optimization.offload_param={"device":"cpu","pin_memory":true}'
    cfg $W/off_$v.json model.path=$M/llama-1b data.train=$DA/stories.jsonl data.max_length=2048 \
        training.max_steps=12 training.output_dir=$OD/off_$v deepspeed.bf16.enabled=true \
        deepspeed.train_micro_batch_size_per_gpu=4 deepspeed.optimizer.params.lr=1e-4 \
        deepspeed.zero_optimization.stage=$st "deepspeed.zero_optimization.offload_optimizer=$oo" "$extra" \
        deepspeed.wall_clock_breakdown=true 'training.profile={"wait":8,"active":2}'
    timeout 30 $FTS estimate $W/off_$v.json > "$OUT/estimate_off_$v.txt" 2>&1
    train off_$v $W/off_$v.json
  done
fi

if [[ " $SECTIONS " == *" probe "* ]] && [ "$(left)" -gt 100 ]; then
  say "fts probe: the seed's stage table on the GPU (1.1B, 3 steps per stage)"
  timeout $(( $(left) - 30 )) $FTS probe $W/full.json --stages 0,1,2,3 --steps 3 --store "$S" > "$OUT/probe.txt" 2>&1
  echo "probe rc=$?"; cat "$OUT/probe.txt" | tail -12
fi

if [[ " $SECTIONS " == *" oom "* ]] && [ "$(left)" -gt 45 ]; then
  say "out of GPU memory: micro batch 96 at 2048 tokens"
  cfg $W/oom.json model.path=$M/llama-1b data.train=$DA/stories.jsonl data.max_length=2048 \
      training.max_steps=2 training.output_dir=$OD/oom deepspeed.bf16.enabled=true \
      deepspeed.train_micro_batch_size_per_gpu=96
  timeout 40 $FTS estimate $W/oom.json > "$OUT/estimate_oom.txt" 2>&1
  train oom $W/oom.json; tail -5 "$OUT/oom.log"
fi
say "done"; nvidia-smi --query-gpu=memory.used --format=csv
