// Leading zeros of a 24-bit significand (as rtl/common's recip and sqrt).
module plena_clz24 (
    input  wire [23:0] v,
    output reg  [4:0]  n
);
    integer i;
    always @* begin
        n = 5'd24;
        for (i = 0; i < 24; i = i + 1)
            if (v[i]) n = 5'd23 - i[4:0];
    end
endmodule
