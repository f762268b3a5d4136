#include "progs.h"

/* The kernel's log prints at most 1023 bytes of a source line (its
 * verbose_linfo formats the text into a 1024-byte buffer); vercheck
 * printed all of the line below. Found by session 34's review of stack
 * slots (a log difference only). */
char _license[] SEC("license") = "GPL";

// vercheck: accept
SEC("socket")
__naked int s34_long_source_line(void)
{
	asm volatile ("r0 = 0; r0 = 1; r0 = 2; r0 = 3; r0 = 4; r0 = 5; r0 = 6; r0 = 7; r0 = 8; r0 = 9; r0 = 10; r0 = 11; r0 = 12; r0 = 13; r0 = 14; r0 = 15; r0 = 16; r0 = 17; r0 = 18; r0 = 19; r0 = 20; r0 = 21; r0 = 22; r0 = 23; r0 = 24; r0 = 25; r0 = 26; r0 = 27; r0 = 28; r0 = 29; r0 = 30; r0 = 31; r0 = 32; r0 = 33; r0 = 34; r0 = 35; r0 = 36; r0 = 37; r0 = 38; r0 = 39; r0 = 40; r0 = 41; r0 = 42; r0 = 43; r0 = 44; r0 = 45; r0 = 46; r0 = 47; r0 = 48; r0 = 49; r0 = 50; r0 = 51; r0 = 52; r0 = 53; r0 = 54; r0 = 55; r0 = 56; r0 = 57; r0 = 58; r0 = 59; r0 = 60; r0 = 61; r0 = 62; r0 = 63; r0 = 64; r0 = 65; r0 = 66; r0 = 67; r0 = 68; r0 = 69; r0 = 70; r0 = 71; r0 = 72; r0 = 73; r0 = 74; r0 = 75; r0 = 76; r0 = 77; r0 = 78; r0 = 79; r0 = 80; r0 = 81; r0 = 82; r0 = 83; r0 = 84; r0 = 85; r0 = 86; r0 = 87; r0 = 88; r0 = 89; r0 = 90; r0 = 91; r0 = 92; r0 = 93; r0 = 94; r0 = 95; r0 = 96; r0 = 97; r0 = 98; r0 = 99; r0 = 0; r0 = 1; r0 = 2; r0 = 3; r0 = 4; r0 = 5; r0 = 6; r0 = 7; r0 = 8; r0 = 9; r0 = 10; r0 = 11; r0 = 12; r0 = 13; r0 = 14; r0 = 15; r0 = 16; r0 = 17; r0 = 18; r0 = 19; r0 = 20; r0 = 21; r0 = 22; r0 = 23; r0 = 24; r0 = 25; r0 = 26; r0 = 27; r0 = 28; r0 = 29; r0 = 30; r0 = 31; r0 = 32; r0 = 33; r0 = 34; r0 = 35; r0 = 36; r0 = 37; r0 = 38; r0 = 39; r0 = 40; r0 = 41; r0 = 42; r0 = 43; r0 = 44; r0 = 45; r0 = 46; r0 = 47; r0 = 48; r0 = 49; r0 = 50; r0 = 51; r0 = 52; r0 = 53; r0 = 54; r0 = 55; r0 = 56; r0 = 57; r0 = 58; r0 = 59; r0 = 0; exit;" ::: __clobber_all);
}
