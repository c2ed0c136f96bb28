#pragma once
// Input for engine_headers_sealed_guard_fails: every line below must be caught.
#include <llama.h>
#include "hidden.h"
struct llama_context;
#include <server-context.h>
#include "mtmd-helper.h"
struct server_context;
void f(mtmd_context *ctx);
