// Package csat reads a contact's answer to the satisfaction question a closed chat asks: a
// digit 1-5 ("5", "5/5", "4 stars") or one of a list of words, so a rating never costs a model
// call. app asks the question and records the rating (app/csat.go, app/automation.go).
package csat
