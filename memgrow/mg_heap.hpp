// The malloc-family replacement (intercept stage for the host heap).
#pragma once

namespace mg {
// Registers the replacement functions with the core (pre_clo_init).
void heap_init();
} // namespace mg
