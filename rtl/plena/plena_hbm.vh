// The HBM storage behind the core's memory port, used only by the harness (plena_sim):
// plena_hbm_read / plena_hbm_write move up to ROW_ELEMS bf16 elements; the core has
// checked every address before. Two implementations with the same (untimed) behaviour,
// since HBM timing is plena_sim's response pipeline:
//  - default (Verilator): DPI-C (rtl/plena/plena_hbm.cpp); HBM contents live in a
//    memory-mapped file that the harness opens per run, so the host writes the image
//    and reads the result without any per-element traffic.
//  - PLENA_HBM_VERILOG (Icarus Verilog, which has no DPI-C): plain Verilog tasks on the
//    harness's element array `hbm`, which plena_sim loads and writes back
//    with $readmemh / $writememh.
`ifdef PLENA_HBM_VERILOG
task automatic plena_hbm_read(input [63:0] addr, input integer n,
                              output reg [ROW_ELEMS*16-1:0] data);
    integer e;
    begin
        data = {ROW_ELEMS*16{1'b0}};
        for (e = 0; e < n; e = e + 1) data[16*e +: 16] = hbm[addr + e];
    end
endtask
task automatic plena_hbm_write(input [63:0] addr, input integer n,
                               input [ROW_ELEMS*16-1:0] data);
    integer e;
    for (e = 0; e < n; e = e + 1) hbm[addr + e] = data[16*e +: 16];
endtask
`else
import "DPI-C" function void plena_hbm_read(input longint addr, input int n,
                                            output bit [ROW_ELEMS*16-1:0] data);
import "DPI-C" function void plena_hbm_write(input longint addr, input int n,
                                             input bit [ROW_ELEMS*16-1:0] data);
`endif
