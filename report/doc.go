// Package report renders the results of catalog checks for people (a text
// table) and for programs (JSON, schema in json.go).
package report
