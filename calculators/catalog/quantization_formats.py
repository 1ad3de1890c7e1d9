"""The documents behind each quantised storage layout (:mod:`calculators.quantization`), as sources.

>>> METHOD_SOURCES["mxfp4"].kind
'derived'
"""

from __future__ import annotations

from calculators.catalog.sources import Source

_READ = "2026-11-29"
OCP_MX = Source("Open Compute Project, 'OCP Microscaling Formats (MX) v1.0 Specification', concrete formats: MXFP4 is a "
                "block of 32 FP4 (E2M1) elements sharing one 8-bit E8M0 scale",
                "https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf",
                "2023-09-13")
NVFP4_BLOG = Source("NVIDIA Technical Blog, 'Introducing NVFP4 for Efficient and Accurate Low-Precision Inference': "
                    "16 E2M1 values share one FP8 (E4M3) scale, plus one FP32 scale per tensor",
                    "https://developer.nvidia.com/blog/introducing-nvfp4-for-efficient-and-accurate-low-precision-"
                    "inference/", "2025-06-24")
FP8_LINEAR = Source("transformers 5.23, integrations/finegrained_fp8.py, FP8Linear: an FP8 weight and weight_scale_inv "
                    "of ceil(out/b0) x ceil(in/b1) FP32 scales for weight_block_size [b0, b1] (one scalar without "
                    "blocks; UE8M0 bytes with scale_fmt ue8m0); activation_scale, one FP32 scalar, when static",
                    "https://github.com/huggingface/transformers/blob/main/src/transformers/integrations/"
                    "finegrained_fp8.py", _READ, kind="derived")
MXFP4_GPT_OSS = Source("transformers 5.23, integrations/mxfp4.py: replace_with_mxfp4_linear converts only the "
                       "experts of GptOssMLP; each projection is stored as *_blocks (16 bytes = 32 E2M1 values) and "
                       "*_scales (one E8M0 byte per 32 values along the input dimension)",
                       "https://github.com/huggingface/transformers/blob/main/src/transformers/integrations/mxfp4.py",
                       _READ, kind="derived")
AWQ_GEMM = Source("AutoAWQ, awq/modules/linear/gemm.py, WQLinear_GEMM: qweight int32 [in, out/8], qzeros int32 "
                  "[in/g, out/8], scales fp16 [in/g, out]: 4 bits per weight, a 16-bit scale and a 4-bit zero per "
                  "group of g inputs", "https://github.com/casper-hansen/AutoAWQ/blob/main/awq/modules/linear/gemm.py",
                  _READ, kind="derived")
GPTQ_LINEAR = Source("AutoGPTQ, auto_gptq/nn_modules/qlinear: qweight int32 [in x bits/32, out], qzeros int32 "
                     "[groups, out x bits/32], scales fp16 [groups, out], g_idx int32 [in]; groups = in/group_size "
                     "(one group for group_size -1)", "https://github.com/AutoGPTQ/AutoGPTQ", _READ, kind="derived")
BNB_4BIT = Source("bitsandbytes, functional.py quantize_4bit: 4-bit values in blocks of 64 with one absmax each "
                  "(FP32; with double quantisation one byte, re-quantised per 256 with an FP32 absmax), a 16-entry "
                  "FP32 code book (256 entries for the nested one); int8: one FP32 scale (SCB) per output row",
                  "https://github.com/bitsandbytes-foundation/bitsandbytes/blob/main/bitsandbytes/functional.py",
                  _READ, kind="derived")
COMPRESSED_TENSORS = Source("compressed-tensors, quantization/lifecycle/initialize.py (scale shapes: tensor 1, channel "
                            "out, group out x ceil(in/g), block ceil(out/b0) x ceil(in/b1), in the weight's dtype "
                            "unless scale_dtype says otherwise; tensor_group adds an FP32 global scale), compressors "
                            "pack_quantized.py (int32 packing, weight_shape) and fp4_quantized.py (NVFP4 uint8 pairs)",
                            "https://github.com/vllm-project/compressed-tensors", _READ, kind="derived")
MODELOPT = Source("NVIDIA TensorRT Model Optimizer, unified Hugging Face checkpoint export: FP8 stores weight, "
                  "weight_scale and input_scale (FP32 scalars); NVFP4 stores packed weight, weight_scale (FP8 per 16), "
                  "weight_scale_2 and input_scale (FP32 scalars); lm_head and routers are excluded by default",
                  "https://github.com/NVIDIA/TensorRT-Model-Optimizer", _READ, kind="derived")


#: ``quant_method`` -> the document its storage layout is read from.
METHOD_SOURCES: dict[str, Source] = {
    "mxfp4": MXFP4_GPT_OSS, "fp8": FP8_LINEAR, "awq": AWQ_GEMM, "gptq": GPTQ_LINEAR, "bitsandbytes": BNB_4BIT,
    "compressed-tensors": COMPRESSED_TENSORS, "modelopt": MODELOPT,
}
