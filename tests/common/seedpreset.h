#pragma once

// The --models-preset INI file from the RTX 3060 guide (shared/seeds), Chinese comments
// included, as the import tests read it. `coderModel` is the model path of its second section;
// `extra` is appended (more sections).
#include <string>

inline std::string seedPreset(const std::string &coderModel = "/models/coder.gguf", const std::string &extra = {})
{
    std::string s = R"(version = 1
[*]
c = 32768
flash-attn = on
batch-size = 512
ctk = f16
ctv = f16
context-shift = true
[Qwen3.5-35B-A3B]
load-on-startup = true
; 20.21GB 效果好 42.3t/s
;model = /home/acai/workspace/llm_models/Qwen3.5-35B-A3B/Qwen3.5-35B-A3B-UD-Q4_K_L.gguf
; 12.16GB 省显存，速度快，效果略差 Q3_K_XL 48.59t/s
model = /home/acai/workspace/llm_models/Qwen3.5-35B-A3B/Qwen3.5-35B-A3B-UD-Q2_K_XL.gguf
mmproj = /home/acai/workspace/llm_models/Qwen3.5-35B-A3B/mmproj-BF16.gguf
c = 102400
; Thinking mode: General tasks
temp = 1.0
top-p = 0.95
top-k = 20
min-p = 0.0
presence-penalty = 1.5
repeat-penalty = 1.0
;chat-template-kwargs = '{"enable_thinking":false}'
[Qwen3-Coder]
model = @CODER@
ctk = q8_0
ctv = q8_0
n-cpu-moe = 20
ngl = 99
temp = 0.6
chat-template-kwargs = '{"enable_thinking":false,"reasoning_effort":"low"}'
)";
    s.replace(s.find("@CODER@"), 7, coderModel);
    return s + extra;
}
