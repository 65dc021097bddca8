/* Fortran named datatypes used from C (MPI-3.1 §3.2.2, §5.9.2): MPI_INTEGER ... MPI_2INTEGER exist as
 * handles in mpi.h, with gfortran's sizes, their own names, and the reductions the standard allows:
 * SUM on MPI_COMPLEX / MPI_DOUBLE_COMPLEX / MPI_REAL / MPI_INTEGER8, LAND/LOR on MPI_LOGICAL, MAXLOC/MINLOC
 * on MPI_2REAL, MPI_2DOUBLE_PRECISION and MPI_2INTEGER; and point-to-point with them.  Any rank count. */
#include <complex.h>

#include "common/check.h"

struct named {
  MPI_Datatype t;
  int size;
  const char *name;
};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  const struct named types[] = {
      {MPI_INTEGER, 4, "MPI_INTEGER"},       {MPI_REAL, 4, "MPI_REAL"},
      {MPI_DOUBLE_PRECISION, 8, "MPI_DOUBLE_PRECISION"}, {MPI_COMPLEX, 8, "MPI_COMPLEX"},
      {MPI_DOUBLE_COMPLEX, 16, "MPI_DOUBLE_COMPLEX"},    {MPI_LOGICAL, 4, "MPI_LOGICAL"},
      {MPI_CHARACTER, 1, "MPI_CHARACTER"},   {MPI_INTEGER1, 1, "MPI_INTEGER1"},
      {MPI_INTEGER2, 2, "MPI_INTEGER2"},     {MPI_INTEGER4, 4, "MPI_INTEGER4"},
      {MPI_INTEGER8, 8, "MPI_INTEGER8"},     {MPI_REAL4, 4, "MPI_REAL4"},
      {MPI_REAL8, 8, "MPI_REAL8"},           {MPI_COMPLEX8, 8, "MPI_COMPLEX8"},
      {MPI_COMPLEX16, 16, "MPI_COMPLEX16"},  {MPI_2REAL, 8, "MPI_2REAL"},
      {MPI_2DOUBLE_PRECISION, 16, "MPI_2DOUBLE_PRECISION"}, {MPI_2INTEGER, 8, "MPI_2INTEGER"},
  };
  for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i) {
    int sz = -1, len = 0;
    MPI_Aint lb = -1, extent = -1;
    char name[MPI_MAX_OBJECT_NAME] = "";
    CHECK(types[i].t != MPI_DATATYPE_NULL, "%s is MPI_DATATYPE_NULL", types[i].name);
    CHECK(MPI_Type_size(types[i].t, &sz) == MPI_SUCCESS && sz == types[i].size, "%s size %d", types[i].name, sz);
    MPI_Type_get_extent(types[i].t, &lb, &extent);
    CHECK(lb == 0 && extent == types[i].size, "%s extent %ld", types[i].name, (long)extent);
    MPI_Type_get_name(types[i].t, name, &len);
    CHECK(strcmp(name, types[i].name) == 0, "name of %s: %s", types[i].name, name);
    for (size_t j = 0; j < i; ++j) CHECK(types[i].t != types[j].t, "%s is a distinct handle", types[i].name);
  }

  /* SUM on the complex types: (rank, 1) summed */
  float complex c = (float)rank + 1.0f * I, csum = 0;
  CHECK(MPI_Allreduce(&c, &csum, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
  CHECK(crealf(csum) == (float)(size * (size - 1) / 2) && cimagf(csum) == (float)size, "SUM on MPI_COMPLEX");
  double complex z = 2.0 + (double)rank * I, zsum = 0;
  MPI_Allreduce(&z, &zsum, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
  CHECK(creal(zsum) == 2.0 * size && cimag(zsum) == (double)(size * (size - 1) / 2), "SUM on MPI_DOUBLE_COMPLEX");
  float r = 0.5f, rsum = 0;
  MPI_Allreduce(&r, &rsum, 1, MPI_REAL, MPI_SUM, MPI_COMM_WORLD);
  CHECK(rsum == 0.5f * size, "SUM on MPI_REAL");
  int64_t i8 = (int64_t)1 << 40, i8sum = 0;
  MPI_Allreduce(&i8, &i8sum, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD);
  CHECK(i8sum == ((int64_t)size << 40), "SUM on MPI_INTEGER8");

  /* LOGICAL (gfortran: 4 bytes, .true. = 1) */
  int32_t t = 1, f = rank == 0 ? 1 : 0, out = -1;
  MPI_Allreduce(&t, &out, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD);
  CHECK(out == 1, "LAND on MPI_LOGICAL of .true.s: %d", out);
  MPI_Allreduce(&f, &out, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD);
  CHECK(out == (size == 1 ? 1 : 0), "LAND on MPI_LOGICAL: %d", out);
  MPI_Allreduce(&f, &out, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD);
  CHECK(out == 1, "LOR on MPI_LOGICAL: %d", out);

  /* MAXLOC / MINLOC on the Fortran pairs: the value peaks (MAXLOC) at the last rank, dips at rank 0 */
  float p2r[2] = {(float)rank * 1.5f, (float)rank}, p2r_out[2] = {0, 0};
  MPI_Allreduce(p2r, p2r_out, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD);
  CHECK(p2r_out[0] == (float)(size - 1) * 1.5f && p2r_out[1] == (float)(size - 1), "MAXLOC on MPI_2REAL");
  double p2d[2] = {-(double)rank, (double)rank}, p2d_out[2] = {0, 0};
  MPI_Allreduce(p2d, p2d_out, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD);
  CHECK(p2d_out[0] == -(double)(size - 1) && p2d_out[1] == (double)(size - 1), "MINLOC on MPI_2DOUBLE_PRECISION");
  int32_t p2i[2] = {7, rank}, p2i_out[2] = {0, 0};
  MPI_Allreduce(p2i, p2i_out, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD);
  CHECK(p2i_out[0] == 7 && p2i_out[1] == 0, "MAXLOC on MPI_2INTEGER (tie: lowest index)");

#ifdef FTMPI
  /* reductions the standard does not define on a type are refused */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int cls = 0;
  MPI_Error_class(MPI_Allreduce(&t, &out, 1, MPI_LOGICAL, MPI_SUM, MPI_COMM_WORLD), &cls);
  CHECK(cls == MPI_ERR_OP, "SUM on MPI_LOGICAL: %s", check_errstr(cls));
  MPI_Error_class(MPI_Allreduce(p2r, p2r_out, 1, MPI_REAL, MPI_MAXLOC, MPI_COMM_WORLD), &cls);
  CHECK(cls == MPI_ERR_OP, "MAXLOC on MPI_REAL: %s", check_errstr(cls));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif

  /* point-to-point with MPI_DOUBLE_COMPLEX, MPI_CHARACTER and MPI_2REAL around a ring */
  double complex zs[3] = {rank + 0.5 * I, 2.0 * rank, -1.0 * I}, zr[3];
  char text[6] = "abcde", got[6] = "";
  float pairs[4] = {1, 2, 3, 4}, pairs_in[4];
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Status st;
  MPI_Sendrecv(zs, 3, MPI_DOUBLE_COMPLEX, right, 1, zr, 3, MPI_DOUBLE_COMPLEX, left, 1, MPI_COMM_WORLD, &st);
  CHECK(zr[0] == left + 0.5 * I && zr[1] == 2.0 * left && zr[2] == -1.0 * I, "MPI_DOUBLE_COMPLEX ring");
  MPI_Sendrecv(text, 5, MPI_CHARACTER, right, 2, got, 5, MPI_CHARACTER, left, 2, MPI_COMM_WORLD, &st);
  CHECK(strcmp(got, "abcde") == 0, "MPI_CHARACTER ring");
  MPI_Sendrecv(pairs, 2, MPI_2REAL, right, 3, pairs_in, 2, MPI_2REAL, left, 3, MPI_COMM_WORLD, &st);
  int count = -1;
  MPI_Get_count(&st, MPI_2REAL, &count);
  CHECK(count == 2 && pairs_in[2] == 3 && pairs_in[3] == 4, "MPI_2REAL: count %d", count);

  if (rank == 0) printf("PASS dtype_fortran_named\n");
  MPI_Finalize();
  return 0;
}
