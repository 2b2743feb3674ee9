//! Proc macros for atos. Thin by design: parsing and lowering live in `atos-codegen`.
//!
//! Every macro keeps the user's item as ordinary Rust (rustc type-checks it and the CPU
//! executor runs it). On a rejected construct the item is re-emitted next to the
//! `compile_error!`, so IDEs keep working.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

/// Marks a task function: `#[atos::task(worker = "warp", fetch = 1)] fn bfs(v: u32, s: &Bfs)`.
/// With several queues in the state, `queue = "near"` names the one the task pops.
///
/// Generates a module of the same name holding `Task`, the handle executors take.
#[proc_macro_attribute]
pub fn task(attr: TokenStream, item: TokenStream) -> TokenStream {
    task_like(attr, item, atos_frontend::parse_task_args)
}

/// Marks an idle hook: `#[atos::idle(range = "n", worker = "warp", fetch = 32)]
/// fn rescan(i: u32, s: &State)`, run by workers whose pops found nothing over the indices
/// `0..n` of the named state field, sweep after sweep, until a full sweep pushes nothing while
/// nothing else runs. Generates `<fn name>::Task`, added to a program like any task.
#[proc_macro_attribute]
pub fn idle(attr: TokenStream, item: TokenStream) -> TokenStream {
    task_like(attr, item, atos_frontend::parse_idle_args)
}

fn task_like(
    attr: TokenStream,
    item: TokenStream,
    parse: fn(TokenStream2) -> syn::Result<atos_frontend::TaskArgs>,
) -> TokenStream {
    let item2: TokenStream2 = item.clone().into();
    let func = match syn::parse::<syn::ItemFn>(item) {
        Ok(f) => f,
        Err(e) => return with_error(item2, e),
    };
    let lowered =
        parse(attr.into()).and_then(|args| atos_frontend::lower_task_spanned(args, &func));
    match lowered {
        Ok((ir, spans)) => task_output(&func, &ir, &spans).into(),
        Err(e) => with_error(quote!(#func), e),
    }
}

/// Marks a device helper callable from tasks: `#[atos::device] fn clamp(x: u32) -> u32`.
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item2: TokenStream2 = item.clone().into();
    if !attr.is_empty() {
        let attr2: TokenStream2 = attr.into();
        return with_error(
            item2,
            syn::Error::new(attr2.span(), "#[atos::device] takes no arguments"),
        );
    }
    let func = match syn::parse::<syn::ItemFn>(item) {
        Ok(f) => f,
        Err(e) => return with_error(item2, e),
    };
    match atos_frontend::lower_device_fn_spanned(&func) {
        Ok((ir, spans)) => device_output(&func, &ir, &spans).into(),
        Err(e) => with_error(quote!(#func), e),
    }
}

/// Marks the struct of arrays and queues a task reads.
///
/// Fields are `Slice<'a, T>`, `Atomics<'a, T>`, `Queue<'a, T>` or scalars; the struct has
/// exactly one lifetime parameter.
#[proc_macro_attribute]
pub fn state(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item2: TokenStream2 = item.clone().into();
    if !attr.is_empty() {
        let attr2: TokenStream2 = attr.into();
        return with_error(
            item2,
            syn::Error::new(attr2.span(), "#[atos::state] takes no arguments"),
        );
    }
    let st = match syn::parse::<syn::ItemStruct>(item) {
        Ok(s) => s,
        Err(_) => {
            let e = syn::Error::new(
                item2.span(),
                "#[atos::state] goes on a struct with named fields, e.g. `pub struct Bfs<'a> { pub work: Queue<'a, u32> }`",
            );
            return with_error(item2, e);
        }
    };
    match state_output(&st) {
        Ok(t) => t.into(),
        Err(e) => with_error(quote!(#st), e),
    }
}

fn with_error(item: TokenStream2, e: syn::Error) -> TokenStream {
    let err = e.to_compile_error();
    quote!(#item #err).into()
}

fn embedded_ir(json: &str) -> TokenStream2 {
    quote! {
        fn ir() -> &'static ::atos::codegen::FnIr {
            static IR: ::std::sync::OnceLock<::atos::codegen::FnIr> = ::std::sync::OnceLock::new();
            IR.get_or_init(|| ::atos::parse_embedded_ir(#json))
        }
    }
}

/// The calls that collect a function's device functions, each spanned at its call in the user's
/// code: calling a plain `fn` (no `#[atos::device]`, so no `Device` handle) fails there.
fn dep_calls(ir: &atos_codegen::FnIr, spans: &[proc_macro2::Span]) -> Vec<TokenStream2> {
    ir.calls
        .iter()
        .zip(spans)
        .map(|(path, span)| {
            let segs: Vec<syn::Ident> = path
                .split("::")
                .map(|s| syn::Ident::new(s, *span))
                .collect();
            let device = syn::Ident::new("Device", *span);
            // `out` is the generated function's parameter: named with this macro's hygiene
            // (located at the call), since a call written by another macro_rules expansion
            // than the task's signature would not see it.
            let out = syn::Ident::new("out", proc_macro2::Span::call_site().located_at(*span));
            quote_spanned!(*span=> <#(#segs)::*::#device as ::atos::DeviceFn>::collect(#out);)
        })
        .collect()
}

/// Visibility for the generated module: the function's own, so the handle is as reachable as
/// the function (a private function's handle is reachable in its module and below).
fn handle_vis(vis: &syn::Visibility) -> (TokenStream2, TokenStream2) {
    match vis {
        syn::Visibility::Inherited => (quote!(), quote!(pub(super))),
        v => (quote!(#v), quote!(pub)),
    }
}

/// The user's function, re-emitted with clippy lints that would steer it toward methods the
/// device subset does not have (e.g. `is_multiple_of` instead of `%`) silenced.
fn user_fn(func: &syn::ItemFn) -> TokenStream2 {
    quote! {
        #[allow(clippy::manual_is_multiple_of)]
        #func
    }
}

fn task_output(
    func: &syn::ItemFn,
    ir: &atos_codegen::FnIr,
    spans: &[proc_macro2::Span],
) -> TokenStream2 {
    let name = &func.sig.ident;
    let (mod_vis, item_vis) = handle_vis(&func.vis);
    let json = ir.to_json();
    let ir_fn = embedded_ir(&json);
    let deps = dep_calls(ir, spans);
    let item_ty = &match &func.sig.inputs[0] {
        syn::FnArg::Typed(pt) => pt.ty.clone(),
        syn::FnArg::Receiver(_) => unreachable!("lowering rejected receivers"),
    };
    let state_ty = state_type_with_lifetime(func, quote!('atos_state));
    let state_static = state_type_with_lifetime(func, quote!('static));
    let check = source_check(func, ir, &state_static);
    let doc = format!("atos handle for the task `{name}`: pass `{name}::Task` to an executor.");
    let func = user_fn(func);
    quote! {
        #func

        #[doc = #doc]
        #[allow(non_snake_case, unused_imports)]
        #mod_vis mod #name {
            use super::*;

            #[derive(Clone, Copy, Debug, Default)]
            #item_vis struct Task;

            #check

            // SAFETY: `StateId` is `State<'static>`, as the trait requires.
            unsafe impl ::atos::Task for Task {
                type State<'atos_state> = #state_ty;
                type StateId = #state_static;
                type Item = #item_ty;
                #ir_fn
                fn device_fns(out: &mut ::std::vec::Vec<&'static ::atos::codegen::FnIr>) {
                    #(#deps)*
                    let _ = out;
                }
                fn call(item: Self::Item, state: &Self::State<'_>) {
                    super::#name(item, state)
                }
            }
        }
    }
}

/// A compile-time check (const evaluation) that the task's items fit the queue it pops, or that
/// an idle hook's range names a sweepable field. A failure is a rustc error at the item type.
fn source_check(
    func: &syn::ItemFn,
    ir: &atos_codegen::FnIr,
    state_static: &TokenStream2,
) -> TokenStream2 {
    let syn::FnArg::Typed(item) = &func.sig.inputs[0] else {
        unreachable!("lowering rejected receivers")
    };
    let item_ty = &item.ty;
    let span = item_ty.span();
    let task = func.sig.ident.to_string();
    let item_name = quote!(#item_ty).to_string().replace(' ', "");
    let attrs = ir.task_attrs().expect("lowered as a task");
    let state = &attrs.state_type;
    match &attrs.source {
        atos_codegen::ItemSource::Idle { range } => {
            let msg = format!(
                "atos: idle hook `{task}` sweeps `{range}`, which is not a u32/u64 scalar or Slice/Atomics field of `{state}`: name the field whose value or length is the number of indices to sweep"
            );
            quote_spanned! {span=>
                const _: () = if !::atos::check::range_check::<#state_static>(#range) {
                    ::std::panic!("{}", #msg)
                };
            }
        }
        atos_codegen::ItemSource::Queue(named) => {
            let queue = named.clone().unwrap_or_default();
            let which = match named {
                Some(q) => format!("queue `{q}`"),
                None => "its queue".to_string(),
            };
            let no_queue = format!(
                "atos: task `{task}` needs a queue to pop, but `{state}` has no `Queue` field: add one, e.g. `pub work: Queue<'a, {item_name}>`"
            );
            let several = format!(
                "atos: `{state}` has several queues: say which one task `{task}` pops with #[atos::task(queue = \"...\")]"
            );
            let unknown = format!(
                "atos: task `{task}` pops queue `{queue}`, but `{state}` has no `Queue` field of that name"
            );
            let arms = atos_codegen::Scalar::ALL
                .iter()
                .map(|s| (format!("{s:?}"), s.rust_name()))
            .map(|(variant, rust)| {
                let v = format_ident!("{}", variant);

                let msg = format!(
                    "atos: task `{task}` takes `{item_name}` items but {which} holds `{rust}`: make the task's item type the queue's element type"
                );
                quote_spanned!(span=> ::std::option::Option::Some(::atos::codegen::Scalar::#v) => ::std::panic!("{}", #msg),)
            });
            let tuple_msg = format!(
                "atos: task `{task}` takes `{item_name}` items but {which} holds another tuple type: make the task's item type the queue's element type"
            );
            quote_spanned! {span=>
                const _: () = match ::atos::check::queue_check::<#state_static>(
                    #queue,
                    <#item_ty as ::atos::QueueItem>::PARTS,
                ) {
                    ::atos::check::QueueCheck::Ok => {}
                    ::atos::check::QueueCheck::NoQueue => ::std::panic!("{}", #no_queue),
                    ::atos::check::QueueCheck::Several => ::std::panic!("{}", #several),
                    ::atos::check::QueueCheck::Unknown => ::std::panic!("{}", #unknown),
                    ::atos::check::QueueCheck::Mismatch(holds) => match holds {
                        #(#arms)*
                        ::std::option::Option::None => ::std::panic!("{}", #tuple_msg),
                    },
                };
            }
        }
    }
}

/// `&Bfs`, `&Bfs<'_>`, `&self::Bfs<'a>` -> `Bfs<#lifetime>` resolvable from the handle module.
fn state_type_with_lifetime(func: &syn::ItemFn, lifetime: TokenStream2) -> TokenStream2 {
    let syn::FnArg::Typed(pt) = &func.sig.inputs[1] else {
        unreachable!("lowering checked the signature")
    };
    let syn::Type::Reference(r) = atos_frontend::plain(&pt.ty) else {
        unreachable!("lowering checked the signature")
    };
    let syn::Type::Path(p) = atos_frontend::plain(&r.elem) else {
        unreachable!("lowering checked the signature")
    };
    let mut path = p.path.clone();
    if let Some(first) = path.segments.first_mut()
        && first.ident == "self"
    {
        first.ident = format_ident!("super");
    }
    if let Some(last) = path.segments.last_mut() {
        last.arguments = syn::PathArguments::AngleBracketed(syn::parse_quote!(<#lifetime>));
    }
    quote!(#path)
}

fn device_output(
    func: &syn::ItemFn,
    ir: &atos_codegen::FnIr,
    spans: &[proc_macro2::Span],
) -> TokenStream2 {
    let name = &func.sig.ident;
    let (mod_vis, item_vis) = handle_vis(&func.vis);
    let ir_fn = embedded_ir(&ir.to_json());
    let deps = dep_calls(ir, spans);
    let func = user_fn(func);
    quote! {
        #func

        #[doc(hidden)]
        #[allow(non_snake_case, unused_imports)]
        #mod_vis mod #name {
            use super::*;

            #[derive(Clone, Copy, Debug, Default)]
            #item_vis struct Device;

            impl ::atos::DeviceFn for Device {
                #ir_fn
                fn deps(out: &mut ::std::vec::Vec<&'static ::atos::codegen::FnIr>) {
                    #(#deps)*
                    let _ = out;
                }
            }
        }
    }
}

fn state_output(st: &syn::ItemStruct) -> syn::Result<TokenStream2> {
    let lifetimes: Vec<_> = st.generics.lifetimes().collect();
    if lifetimes.len() != 1 || st.generics.params.len() != 1 {
        return Err(syn::Error::new(
            if st.generics.params.is_empty() {
                st.ident.span()
            } else {
                st.generics.span()
            },
            "an #[atos::state] struct takes exactly one lifetime parameter and no type parameters, e.g. `pub struct Bfs<'a>`",
        ));
    }
    let syn::Fields::Named(fields) = &st.fields else {
        return Err(syn::Error::new(
            st.fields.span(),
            "#[atos::state] needs named fields",
        ));
    };
    if fields.named.is_empty() {
        return Err(syn::Error::new(
            st.ident.span(),
            "an #[atos::state] struct needs at least a `Queue` field",
        ));
    }
    let name = &st.ident;
    let name_str = name.to_string();
    let lt = &lifetimes[0].lifetime;
    let idents: Vec<&syn::Ident> = fields
        .named
        .iter()
        .map(|f| f.ident.as_ref().unwrap())
        .collect();
    let names: Vec<String> = idents.iter().map(|i| i.to_string()).collect();
    let types: Vec<&syn::Type> = fields.named.iter().map(|f| &f.ty).collect();
    Ok(quote! {
        #st

        impl<#lt> ::atos::State for #name<#lt> {
            const NAME: &'static str = #name_str;
            const FIELDS: &'static [::atos::FieldInfo] = &[#(
                ::atos::FieldInfo {
                    name: #names,
                    kind: <#types as ::atos::StateField>::KIND,
                    parts: <#types as ::atos::StateField>::PARTS,
                }
            ),*];
            fn fields(&self) -> ::std::vec::Vec<::atos::FieldRef<'_>> {
                ::std::vec![#(::atos::StateField::field_ref(&self.#idents)),*]
            }
        }
    })
}
