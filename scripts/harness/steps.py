"""Build a model from its config and run real training or inference steps under the tracker."""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Iterator

from harness.case import Case
from harness.presets import DTYPES, LORA_NAMES, PRESETS
from harness.record import finish_record
from harness.tracker import Recorder, make_tracker_class


def _torch_dtype(name: str):
    import torch
    return getattr(torch, DTYPES.get(name, name))


def _build_config(raw: dict[str, Any]):
    from transformers import AutoConfig
    cfg = dict(raw)
    model_type = cfg.pop("model_type")
    for k in ("architectures", "torch_dtype", "_name_or_path", "transformers_version"):
        cfg.pop(k, None)
    return AutoConfig.for_model(model_type, **cfg)


def _build_model(raw: dict[str, Any], dtype, attention: str, device: str):
    import torch
    from transformers import AutoModelForCausalLM
    cfg = _build_config(raw)
    dev_ctx = torch.device("cuda") if device == "cuda" else contextlib.nullcontext()
    with dev_ctx:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = AutoModelForCausalLM.from_config(cfg, dtype=dtype, attn_implementation=attention)
    return model



def _make_optimizer(name: str, params, device: str):
    import torch
    if name == "adamw":
        return torch.optim.AdamW(params, lr=1e-5, foreach=True)
    if name == "adamw-fused":
        return torch.optim.AdamW(params, lr=1e-5, fused=True)
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-3, momentum=0.9, foreach=True)
    if name == "adafactor":
        return torch.optim.Adafactor(params, lr=1e-3, foreach=True)
    if name == "adamw-8bit":
        if device != "cuda":
            raise NotMeasurable("8-bit AdamW needs bitsandbytes on CUDA")
        import bitsandbytes as bnb  # type: ignore
        return bnb.optim.AdamW8bit(params, lr=1e-5)
    raise ValueError(f"unknown optimizer {name}")


class NotMeasurable(RuntimeError):
    pass


@contextlib.contextmanager
def _fake_patches(fake: bool) -> Iterator[list[str]]:
    """Work-arounds that make fake-tensor runs follow the code path of a real GPU run."""
    notes: list[str] = []
    if not fake:
        yield notes
        return
    import transformers.masking_utils as mu
    saved = []
    orig_packed = mu.find_packed_sequence_indices

    def find_packed_sequence_indices(position_ids):  # type: ignore[no-untyped-def]
        # transformers treats fake tensors as "tracing" and keeps a packed-sequence mask, which forces a
        # materialised 4-D attention mask; real unpacked batches return None here (checked on real CPU).
        return None

    mu.find_packed_sequence_indices = find_packed_sequence_indices
    saved.append((mu, "find_packed_sequence_indices", orig_packed))
    notes.append("fake mode: transformers.masking_utils.find_packed_sequence_indices returns None (as it does "
                 "for real unpacked batches) so SDPA gets attn_mask=None/is_causal=True like a real run")
    import torch
    orig_to = torch.nn.Module.to

    def module_to(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        # Module.to(cpu) on fake parameters swaps tensors and fails (weakref); everything is on cpu already.
        device, dtype, _nb, fmt = torch._C._nn._parse_to(*args, **kwargs)
        if (device is None or device.type == "cpu") and dtype is None and fmt is None:
            return self
        return orig_to(self, *args, **kwargs)

    torch.nn.Module.to = module_to  # type: ignore[method-assign]
    saved.append((torch.nn.Module, "to", orig_to))
    try:
        from peft.tuners.tuners_utils import BaseTunerLayer
        orig_move = BaseTunerLayer._move_adapter_to_device_of_base_layer

        def _move(self, adapter_name, device=None):  # type: ignore[no-untyped-def]
            # Module.to() on fake parameters fails (swap_tensors + weakref); adapters are already on the
            # (fake) cpu device in fp32, which is also what autocast_adapter_dtype=True ends with.
            return None

        BaseTunerLayer._move_adapter_to_device_of_base_layer = _move  # type: ignore[method-assign]
        saved.append((BaseTunerLayer, "_move_adapter_to_device_of_base_layer", orig_move))
    except Exception:  # pragma: no cover - peft missing
        pass
    try:
        yield notes
    finally:
        for obj, name, orig in saved:
            setattr(obj, name, orig)


@contextlib.contextmanager
def run_mode(device: str) -> Iterator[tuple[str, list[str]]]:
    """The mode every measured step runs in: fake tensors for ``device`` ``"fake"`` (with :func:`_fake_patches`),
    else the real device; the seed fixed at 0. Yields the device of the inputs (``"cuda"`` or ``"cpu"``) and the
    notes of the patches made."""
    import torch
    with contextlib.ExitStack() as mode:
        if device == "fake":
            from torch._subclasses.fake_tensor import FakeTensorMode
            mode.enter_context(FakeTensorMode())
        torch.manual_seed(0)
        yield ("cuda" if device == "cuda" else "cpu"), list(mode.enter_context(_fake_patches(device == "fake")))


def _apply_lora(model, case: Case):
    from peft import LoraConfig, get_peft_model
    targets = [LORA_NAMES[t] for t in case.lora_targets]
    present = {n.rsplit(".", 1)[-1] for n, _ in model.named_modules()}
    targets = [t for t in targets if t in present]
    if not targets:
        raise ValueError(f"no LoRA targets {case.lora_targets} in this model")
    cfg = LoraConfig(r=case.lora_rank, lora_alpha=2 * case.lora_rank, target_modules=targets,
                     lora_dropout=0.0, bias="none", task_type="CAUSAL_LM")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return get_peft_model(model, cfg), targets


def _quantize_4bit(model, compute_dtype):  # pragma: no cover - CUDA + bitsandbytes only
    import bitsandbytes as bnb  # type: ignore
    import torch
    for name, mod in list(model.named_modules()):
        for cname, child in list(mod.named_children()):
            if isinstance(child, torch.nn.Linear) and cname != "lm_head":
                q = bnb.nn.Linear4bit(child.in_features, child.out_features, bias=child.bias is not None,
                                      compute_dtype=compute_dtype, quant_type="nf4", device="cpu")
                q.weight = bnb.nn.Params4bit(child.weight.data.to("cpu"), requires_grad=False,
                                             quant_type="nf4")
                if child.bias is not None:
                    q.bias = torch.nn.Parameter(child.bias.data.to("cpu"), requires_grad=False)
                setattr(mod, cname, q.cuda())
                del child
    torch.cuda.empty_cache()
    return model


def run_train(case: Case, device: str) -> dict[str, Any]:
    import torch
    Tracker = make_tracker_class()
    adjustments: list[str] = []
    raw = case.model_config or PRESETS[case.preset]
    if case.method == "qlora":
        if device != "cuda":
            raise NotMeasurable("QLoRA needs bitsandbytes on CUDA; not measurable in fake/cpu mode")
        import bitsandbytes  # noqa: F401  # type: ignore
    if case.optimizer == "adamw-8bit" and device != "cuda":
        raise NotMeasurable("8-bit AdamW needs bitsandbytes on CUDA")
    mixed = case.precision in ("bf16-mixed", "fp16-mixed")
    if case.method == "full":
        model_dtype = _torch_dtype("fp32" if mixed or case.precision == "fp32" else case.precision)
    else:
        # frozen base in `weights` dtype, adapters fp32 (peft autocast_adapter_dtype=True)
        model_dtype = _torch_dtype(case.weights)
    autocast_dtype = {"bf16-mixed": torch.bfloat16, "fp16-mixed": torch.float16}.get(case.precision)
    fake = device == "fake"
    with run_mode(device) as (dev, patch_notes):
        adjustments += patch_notes
        model = _build_model(raw, model_dtype if case.method != "qlora" else torch.bfloat16,
                             case.attention, device)
        lora_targets_used = None
        if case.method == "qlora":
            model = _quantize_4bit(model, torch.bfloat16)
        if case.method in ("lora", "qlora"):
            model, lora_targets_used = _apply_lora(model, case)
        model.config.use_cache = False
        if case.grad_checkpointing:
            if hasattr(model, "activation_checkpointing_enable"):  # transformers >= 5.2x
                model.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})
            else:
                model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            if case.method != "full":
                # peft/transformers need an input that requires grad for checkpointed LoRA
                model.enable_input_require_grads()
        model.train()
        params = [p for p in model.parameters() if p.requires_grad]
        lora_dtypes = sorted({str(p.dtype).replace("torch.", "") for p in params})
        all_param_dtypes = sorted({str(p.dtype).replace("torch.", "") for p in model.parameters()})
        n_params = sum(p.numel() for p in model.parameters())
        n_trainable = sum(p.numel() for p in params)
        opt = _make_optimizer(case.optimizer, params, device)

        tracker = Tracker("cuda" if device == "cuda" else None)
        rec = Recorder(tracker, device)
        param_serials: set[int] = set()
        grad_serials: set[int] = set()
        state_serials: set[int] = set()
        with tracker:
            param_serials = tracker.register_weights(model)
            rec.boundary("weights")
            vocab = int(model.config.get_text_config().vocab_size)
            for step in range(1, case.steps + 1):
                ids = torch.randint(0, vocab, (case.batch, case.seq), device=dev)
                rec.boundary(f"step{step}.before_forward")
                with rec.phase("forward", step):
                    ac = (torch.autocast(device_type=dev, dtype=autocast_dtype) if autocast_dtype
                          else contextlib.nullcontext())
                    with ac:
                        loss = model(input_ids=ids, labels=ids).loss
                rec.boundary(f"step{step}.after_forward")
                with rec.phase("backward", step):
                    loss.backward()
                    del loss
                for p in params:
                    if p.grad is not None:
                        s = tracker.serial_of(p.grad)
                        if s is not None:
                            grad_serials.add(s)
                rec.boundary(f"step{step}.after_backward")
                with rec.phase("optimizer", step):
                    tracker.cpu_scalar_rule = dev != "cuda" and case.optimizer != "adamw-fused"
                    tracker.fake_item_value = fake
                    try:
                        opt.step()
                    finally:
                        tracker.cpu_scalar_rule = False
                        tracker.fake_item_value = False
                    for st in opt.state.values():
                        for k, v in st.items():
                            if isinstance(v, torch.Tensor):
                                s = tracker.serial_of(v)
                                if s is not None:
                                    state_serials.add(s)
                    rec.boundary(f"step{step}.after_optimizer")
                    opt.zero_grad(set_to_none=True)
                rec.boundary(f"step{step}.after_zero_grad")
                del ids
        sets = {"parameters": param_serials, "gradients": grad_serials, "optimizer_states": state_serials}
        if dev != "cuda" and case.optimizer in ("adamw", "sgd", "adafactor"):
            adjustments.append(
                "optimizer scalar step counters (torch.tensor created without device) and scalars derived "
                "only from them are excluded: on CUDA non-capturable foreach/for-loop optimizers keep them "
                "on the host")
        if case.optimizer == "adamw-fused":
            adjustments.append("fused AdamW keeps its step counters on the device: counted (512 B each)")
        if fake and case.optimizer == "adafactor":
            adjustments.append("Adafactor calls .item() (norms, step): answered with 1.0 under fake tensors; "
                               "values do not affect memory")
        info = {
            "n_params": n_params, "n_trainable_params": n_trainable,
            "experts_implementation": getattr(model.config, "_experts_implementation", None),
            "trainable_dtypes": lora_dtypes, "param_dtypes": all_param_dtypes,
            "lora_modules": lora_targets_used,
        }
    return finish_record(case, device, rec, sets, adjustments, info, autocast_dtype)



def run_infer(case: Case, device: str) -> dict[str, Any]:
    import torch
    from transformers import DynamicCache
    Tracker = make_tracker_class()
    raw = case.model_config or PRESETS[case.preset]
    kv = case.kv_cache or case.weights
    if kv != case.weights:
        raise NotMeasurable("a KV cache dtype other than the weights dtype is not supported by DynamicCache")
    with run_mode(device) as (dev, adjustments):
        model = _build_model(raw, _torch_dtype(case.weights), case.attention, device)
        model.eval()
        n_params = sum(p.numel() for p in model.parameters())
        tracker = Tracker("cuda" if device == "cuda" else None)
        rec = Recorder(tracker, device)
        kv_serials: set[int] = set()

        state_serials: set[int] = set()

        def collect_cache(cache) -> int:
            """K/V bytes of the cache now; the linear-attention / Mamba layers' conv and recurrent states are
            classified as kv_cache too (their bytes are recorded apart: collect_state)."""
            total = 0
            seen: set[int] = set()
            for layer in cache.layers:
                for t in (getattr(layer, "keys", None), getattr(layer, "values", None)):
                    if isinstance(t, torch.Tensor):
                        s = tracker.serial_of(t)
                        if s is not None and s not in seen:
                            seen.add(s)
                            kv_serials.add(s)
                            total += tracker.live.get(s, 0)
            collect_state(cache)
            return total

        def collect_state(cache) -> int:
            total = 0
            for layer in cache.layers:
                for states in (getattr(layer, "conv_states", None), getattr(layer, "recurrent_states", None)):
                    for t in (states or {}).values():
                        if isinstance(t, torch.Tensor):
                            s = tracker.serial_of(t)
                            if s is not None and s not in state_serials:
                                state_serials.add(s)
                                kv_serials.add(s)
                            total += tracker.live.get(s, 0) if s is not None else 0
            return total

        # Mamba-only models (MambaForCausalLM, Mamba2ForCausalLM) take their cache as cache_params.
        import inspect
        cache_key = "cache_params" if "cache_params" in inspect.signature(model.forward).parameters \
            else "past_key_values"

        with tracker, torch.no_grad():
            param_serials = tracker.register_weights(model)
            rec.boundary("weights")
            vocab = int(model.config.get_text_config().vocab_size)
            ids = torch.randint(0, vocab, (case.batch, case.context), device=dev)
            cache = DynamicCache(config=model.config)
            rec.boundary("before_prefill")
            with rec.phase("prefill"):
                out = model(input_ids=ids, use_cache=True, logits_to_keep=1, **{cache_key: cache})
                nxt = out.logits[:, -1:].argmax(-1)
                del out
            del ids
            collect_cache(cache)
            rec.boundary("after_prefill")
            kv_after_prefill = collect_cache(cache)
            with rec.phase("decode"):
                for _ in range(case.new_tokens):
                    out = model(input_ids=nxt, use_cache=True, logits_to_keep=1, **{cache_key: cache})
                    nxt = out.logits[:, -1:].argmax(-1)
                    del out
                    collect_cache(cache)
            rec.boundary("after_decode")
            kv_bytes = collect_cache(cache)
            state_bytes = collect_state(cache)
            try:
                kv_len = cache.get_seq_length()
            except ValueError:  # transformers refuses a cache of linear-attention / Mamba layers only
                kv_len = 0
        sets = {"parameters": param_serials, "kv_cache": kv_serials}
        info = {"n_params": n_params, "kv_cache_bytes_after_prefill": kv_after_prefill,
                "experts_implementation": getattr(model.config, "_experts_implementation", None),
                "kv_cache_seq_len": int(kv_len)}
    rec_out = finish_record(case, device, rec, sets, adjustments, info, None)
    rec_out["measured"]["kv_cache_bytes"] = kv_bytes
    if state_bytes:
        rec_out["measured"]["recurrent_state_bytes"] = state_bytes
    return rec_out
