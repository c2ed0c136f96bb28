#pragma once
// An internal header that leaky.h wrongly includes.
