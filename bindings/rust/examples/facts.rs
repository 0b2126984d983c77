//! Prints what the probe found, as JSON with the key names of
//! `jitflush-info --json` ("global" and the per-CPU records; the test
//! rust.aarch64 compares the two under the rig).
//!
//!     cargo run --example facts

use jitflush::{Info, Source};

fn text(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn source(s: Source) -> String {
    text(s.name())
}

fn main() {
    let info = Info::get();
    let f = info.facts();
    let status = match f.status {
        Ok(s) => s.code(),
        Err(e) => e.code(),
    };
    let cpus: Vec<String> = info
        .cpus()
        .map(|c| {
            format!(
                "{{\"cpu\":{},\"online\":{},\"observed\":{},\"midr\":{},\"midr_source\":{},\
                 \"ctr_el0\":{},\"iline\":{},\"dline\":{},\"iline_source\":{},\"dline_source\":{},\
                 \"idc\":{},\"dic\":{},\"idc_dic_source\":{},\"sysfs_l1i_line\":{},\
                 \"sysfs_l1d_line\":{},\"inferred_from\":{},\"core\":{}}}",
                c.cpu,
                c.online,
                c.ctr_el0.is_some(),
                c.midr
                    .map_or("null".into(), |(m, _)| text(&format!("{m:#x}"))),
                source(c.midr.map_or(Source::None, |(_, s)| s)),
                c.ctr_el0
                    .map_or("null".into(), |v| text(&format!("{v:#x}"))),
                c.iline,
                c.dline,
                source(c.iline_source),
                source(c.dline_source),
                c.idc,
                c.dic,
                source(c.idc_dic_source),
                c.sysfs_l1i_line,
                c.sysfs_l1d_line,
                c.inferred_from.map_or("null".into(), |v| v.to_string()),
                c.core_name().map_or("null".into(), text),
            )
        })
        .collect();
    println!(
        "{{\"version\":{},\"platform\":{},\"method\":{},\"ncpus_possible\":{},\"truncated\":{},\
         \"global\":{{\"iline\":{},\"dline\":{},\"idc\":{},\"dic\":{},\"heterogeneous\":{},\
         \"complete\":{},\"iline_source\":{},\"dline_source\":{},\"per_call_guard\":{},\
         \"online_check\":{},\"use_dc_civac\":{},\"status\":{}}},\"cpus\":[{}]}}",
        text(jitflush::VERSION),
        text(f.platform),
        text(f.method),
        f.ncpus_possible,
        f.truncated,
        f.iline,
        f.dline,
        f.idc,
        f.dic,
        f.heterogeneous,
        f.complete,
        source(f.iline_source),
        source(f.dline_source),
        f.per_call_guard,
        f.online_check,
        f.use_dc_civac,
        status,
        cpus.join(",")
    );
}
