// A word of N 16-bit elements with the elements `mask` selects taken from `data`, the
// rest from `old`: an element-masked SRAM write (plena_sram, plena_sram2w).
function automatic [N*16-1:0] sram_merged(input [N*16-1:0] old, input [N*16-1:0] data,
                                          input [N-1:0] mask);
    integer e;
    for (e = 0; e < N; e = e + 1)
        sram_merged[16*e +: 16] = mask[e] ? data[16*e +: 16] : old[16*e +: 16];
endfunction
