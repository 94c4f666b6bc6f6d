// The HBM model's DPI-C interface (rtl/plena/plena_hbm.cpp): HBM contents live in a
// memory-mapped file that the simulation harness opens per run, so the host writes the
// memory image and reads the result without any per-element traffic. Transfers move
// whole rows of ROW_ELEMS bf16 elements; the RTL has checked every address before.
import "DPI-C" function void plena_hbm_read(input longint addr, input int n,
                                            output bit [ROW_ELEMS*16-1:0] data);
import "DPI-C" function void plena_hbm_write(input longint addr, input int n,
                                             input bit [ROW_ELEMS*16-1:0] data);
