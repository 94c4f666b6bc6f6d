// coral_isa_check: the generated decode constants in one module that pyverilog can parse
// on its own (tests/rtl/coral/test_generated.py reads them back and holds them against
// isa/coral). Not part of the core or of any build.
module coral_isa_check ();
`include "coral_isa.vh"
endmodule
