/* dtype_lbub_markers — MPI-1's bound markers MPI_LB / MPI_UB in struct types, as MPICH's test/mpi/datatype
 * lbub_oldapi and struct_no_real_types use them (MPI_Type_struct and MPI_Type_create_struct alike), and the
 * name of MPI_C_COMPLEX (datatype/typename):
 *  - { (LB,6), 4*(BYTE,0), (UB,-3) }: size 4, lb 6, extent -9 (an upper marker below the lower one);
 *  - { (LB,10) } alone: size 0, lb 10, ub 0 (the empty map's), extent -10;
 *  - { (LB,-3), 4*(BYTE,0), (UB,6) }: lb -3, extent 9, no alignment padding; packs its 4 bytes, and two of
 *    them back to back are 9 bytes apart;
 *  - MPI_Type_get_envelope reports MPI_COMBINER_STRUCT with the markers among the types;
 *  - MPI_C_COMPLEX (a synonym of MPI_C_FLOAT_COMPLEX here) is named "MPI_C_COMPLEX".
 * 1 rank. Open MPI 4.1 removed MPI_LB/MPI_UB from its header: the program then checks the name only. */
#include "common/check.h"

static void bounds(MPI_Datatype t, MPI_Aint lb, MPI_Aint extent, int size, const char *what) {
  MPI_Aint l, e;
  int s;
  CHECK_MPI(MPI_Type_get_extent(t, &l, &e));
  CHECK_MPI(MPI_Type_size(t, &s));
  CHECK(l == lb && e == extent && s == size, "%s: lb %ld extent %ld size %d, want %ld %ld %d", what, (long)l,
        (long)e, s, (long)lb, (long)extent, size);
}

int main(int argc, char **argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
#ifndef OPEN_MPI
  MPI_Datatype t;
  {
    int bl[3] = {1, 4, 1};
    MPI_Aint d[3] = {6, 0, -3};
    MPI_Datatype ty[3] = {MPI_LB, MPI_BYTE, MPI_UB};
    CHECK_MPI(MPI_Type_create_struct(3, bl, d, ty, &t));
    bounds(t, 6, -9, 4, "{(LB,6),4*(BYTE,0),(UB,-3)}");
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    int bl = 1;
    MPI_Aint d = 10;
    MPI_Datatype ty = MPI_LB;
    CHECK_MPI(MPI_Type_create_struct(1, &bl, &d, &ty, &t));
    bounds(t, 10, -10, 0, "{(LB,10)}");
    CHECK_MPI(MPI_Type_free(&t));
  }
  {
    int bl[3] = {1, 4, 1}, ni, na, nd, comb, pos = 0, i;
    MPI_Aint d[3] = {-3, 0, 6};
    MPI_Datatype ty[3] = {MPI_LB, MPI_BYTE, MPI_UB};
    char src[32], packed[8];
    CHECK_MPI(MPI_Type_struct(3, bl, d, ty, &t));
    bounds(t, -3, 9, 4, "{(LB,-3),4*(BYTE,0),(UB,6)}");
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    CHECK(comb == MPI_COMBINER_STRUCT && ni == 4 && na == 3 && nd == 3, "envelope %d %d %d %d", comb, ni, na, nd);
    {
      int ints[4];
      MPI_Aint addrs[3];
      MPI_Datatype types[3];
      CHECK_MPI(MPI_Type_get_contents(t, 4, 3, 3, ints, addrs, types));
      CHECK(types[0] == MPI_LB && types[1] == MPI_BYTE && types[2] == MPI_UB && addrs[2] == 6,
            "contents do not give the markers back");
    }
    CHECK_MPI(MPI_Type_commit(&t));
    for (i = 0; i < 32; i++) src[i] = (char)i;
    CHECK_MPI(MPI_Pack(&src[3], 2, t, packed, (int)sizeof packed, &pos, MPI_COMM_SELF));
    CHECK(pos == 8, "packed %d bytes", pos);
    for (i = 0; i < 4; i++)
      CHECK(packed[i] == 3 + i && packed[4 + i] == 12 + i, "packed byte %d: %d %d", i, packed[i], packed[4 + i]);
    CHECK_MPI(MPI_Type_free(&t));
  }
#endif
  {
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    CHECK_MPI(MPI_Type_get_name(MPI_C_COMPLEX, name, &len));
    CHECK(strcmp(name, "MPI_C_COMPLEX") == 0 || strcmp(name, "MPI_C_FLOAT_COMPLEX") == 0, "name %s", name);
#ifndef OPEN_MPI
    if (MPI_C_COMPLEX == MPI_C_FLOAT_COMPLEX) /* one handle: MPICH's name for it */
      CHECK(strcmp(name, "MPI_C_COMPLEX") == 0, "MPI_C_COMPLEX is named %s", name);
#endif
  }
  check_pass("dtype_lbub_markers");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
