package emit

import (
	"github.com/dave/jennifer/jen"
	"github.com/retrygen/retrygen/gen/model"
)

// serverConsts renders the spec's servers as constants, and a function that fills the
// variables of each server that has some.
func (e *emitter) serverConsts() []jen.Code {
	var out []jen.Code
	for _, s := range e.api.ServerConsts {
		var d doc
		d.para(s.GoName + " is a server of the API, from the spec's servers list.")
		d.para(s.Description)
		out = append(out, d.code().Const().Id(s.GoName).Op("=").Lit(s.URL).Line())
		if s.FuncName != "" {
			out = append(out, serverFunc(s).Line())
		}
	}
	return out
}

func serverFunc(s *model.ServerConst) *jen.Statement {
	var d doc
	d.para(s.FuncName + " returns " + s.GoName + " with its variables filled; an empty argument takes the variable's default, and a value outside its enum is an error.")
	var params, vars []jen.Code
	for _, v := range s.Vars {
		params = append(params, jen.Id(v.GoName).String())
		fields := jen.Dict{
			jen.Id("Name"):    jen.Lit(v.Name),
			jen.Id("Value"):   jen.Id(v.GoName),
			jen.Id("Default"): jen.Lit(v.Default),
		}
		if len(v.Enum) > 0 {
			enum := make([]jen.Code, len(v.Enum))
			for i, x := range v.Enum {
				enum[i] = jen.Lit(x)
			}
			fields[jen.Id("Enum")] = jen.Index().String().Values(enum...)
		}
		vars = append(vars, jen.Qual(wirePath, "ServerVariable").Values(fields))
		if v.Description != "" {
			d.para(v.GoName + ": " + v.Description)
		}
	}
	return d.code().Func().Id(s.FuncName).Params(params...).Params(jen.String(), jen.Error()).Block(
		jen.Return(jen.Qual(wirePath, "ServerURL").Call(append([]jen.Code{jen.Id(s.GoName)}, vars...)...)),
	)
}
