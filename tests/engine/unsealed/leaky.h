#pragma once
// Input for engine_headers_sealed_guard_fails: every line below must be caught.
#include <llama.h>
#include "hidden.h"
struct llama_context;
