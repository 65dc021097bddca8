#define FIVE 1
#include "../reinit/reinit_pp.c"
