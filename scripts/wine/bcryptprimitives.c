// bcryptprimitives.c: ProcessPrng for Wine 8.0, which lacks it and which Go
// 1.22 and later call at start-up on Windows. Only for running the
// Windows tests under Wine (scripts/wine.sh builds it with mingw-w64 into
// the Wine prefix's system32); real Windows has bcryptprimitives.dll.
// It fills the buffer from RtlGenRandom (advapi32's SystemFunction036).
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size) {
	while (size > 0) {
		ULONG n = size > 0x10000000 ? 0x10000000 : (ULONG)size;
		if (!SystemFunction036(data, n)) return FALSE;
		data += n;
		size -= n;
	}
	return TRUE;
}
