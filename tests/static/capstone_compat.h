// Capstone renamed ARM64 to AArch64 in v6; keep that difference here.
#pragma once
#include <capstone/capstone.h>

#if CS_API_MAJOR >= 6
#define JF_CS_ARCH_AARCH64 CS_ARCH_AARCH64
#else
#define JF_CS_ARCH_AARCH64 CS_ARCH_ARM64
#endif
