// aie_params_check: the generated parameter list and decode constants in one module
// that pyverilog can parse on its own (tests/rtl/aie/test_generated.py reads them back
// and holds them against isa/aie). Not part of the tile or of any build.
module aie_params_check #(
`include "aie_params.vh"
) ();
`include "aie_isa.vh"
endmodule
